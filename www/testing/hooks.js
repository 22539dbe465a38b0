// What the browser tests and the benchmark read from the page, kept out of the page's own logic:
//   window.__attnscope = { state, call, redraws }: the page state (www/app/store.js), the worker
//     client's `call`, and every keystroke-to-redraw time;
//   body[data-first-heatmap-ms]: when the first heatmap of the loaded model was drawn.

const record = {
  redraws: [], // { ms: keystroke → redraw done (debounce included), computeMs, renderMs }
  keystrokeAt: new Map(), // generation → time of its keystroke
  firstHeatmapMs: null, // when the loaded model's first heatmap was drawn, or null before it is
};

export function installHooks({ state, call }) {
  window.__attnscope = { state, call, redraws: record.redraws };
}

export function keystroke(generation) {
  record.keystrokeAt.set(generation, performance.now());
  if (record.keystrokeAt.size > 2000) record.keystrokeAt.delete(record.keystrokeAt.keys().next().value);
}

export function modelLoaded() {
  record.firstHeatmapMs = null;
}

/** Every view shows the answer to `generation` (null: not a keystroke's answer). */
export function redrawn(generation, computeMs, renderMs) {
  if (record.firstHeatmapMs == null) {
    record.firstHeatmapMs = performance.now();
    document.body.dataset.firstHeatmapMs = String(Math.round(record.firstHeatmapMs));
  }
  const { keystrokeAt, redraws } = record;
  if (generation != null && keystrokeAt.has(generation)) {
    redraws.push({ ms: performance.now() - keystrokeAt.get(generation), computeMs, renderMs });
    if (redraws.length > 1000) redraws.shift();
  }
}
