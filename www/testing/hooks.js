// What the browser tests and the benchmark read from the page, kept out of the page's own logic:
//   window.__attnscope = { state, call, redraws }: the page state (generations, backend), the
//     worker client's `call`, and every keystroke-to-redraw time;
//   body[data-first-heatmap-ms]: when the first heatmap of the loaded model was drawn.

const redraws = []; // { ms: keystroke → redraw done (debounce included), computeMs, renderMs }
const keystrokeAt = new Map(); // generation → time of its keystroke
let firstHeatmapMs = null;

export function installHooks({ state, call }) {
  window.__attnscope = { state, call, redraws };
}

export function keystroke(generation) {
  keystrokeAt.set(generation, performance.now());
  if (keystrokeAt.size > 2000) keystrokeAt.delete(keystrokeAt.keys().next().value);
}

export function modelLoaded() {
  firstHeatmapMs = null;
}

/** Every view shows the answer to `generation` (null: not a keystroke's answer). */
export function redrawn(generation, computeMs, renderMs) {
  if (firstHeatmapMs == null) {
    firstHeatmapMs = performance.now();
    document.body.dataset.firstHeatmapMs = String(Math.round(firstHeatmapMs));
  }
  if (generation != null && keystrokeAt.has(generation)) {
    redraws.push({ ms: performance.now() - keystrokeAt.get(generation), computeMs, renderMs });
    if (redraws.length > 1000) redraws.shift();
  }
}
