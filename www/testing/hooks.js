// What the browser tests and the benchmark read from the page, kept out of the page's own logic:
//   window.__attnscope = { state, call, redraws, workers, trapNewWorkers }: the page state
//     (www/app/store.js), the worker client's `call`, every keystroke-to-redraw time, how many
//     workers the page has started, and `trapNewWorkers(on, count)`: the next `count` workers
//     trap on their first request of type `on` (a model that kills every worker it is loaded in);
//   body[data-first-heatmap-ms]: when the first heatmap of the loaded model was drawn.

const record = {
  // { ms: keystroke → every view in sight redrawn (debounce included), computeMs, renderMs (main-thread
  // drawing until then), allMs and allRenderMs (the same once the views out of sight are drawn too) }
  redraws: [],
  keystrokeAt: new Map(), // generation → time of its keystroke
  firstHeatmapMs: null, // when the loaded model's first heatmap was drawn, or null before it is
  workers: 0, // workers started so far
  trapping: { on: null, count: 0 }, // the next `count` workers trap on their first `on` request
};

export function installHooks({ state, call }) {
  const trapNewWorkers = (on, count) => {
    record.trapping = { on, count };
  };
  window.__attnscope = { state, call, redraws: record.redraws, workers: () => record.workers, trapNewWorkers };
}

/** A worker was started: the hook requests it gets before any other, as [type, args] (none for a person). */
export function workerSpawned() {
  record.workers += 1;
  const { on, count } = record.trapping;
  if (!count) return [];
  record.trapping.count -= 1;
  return [['test:trap', { on }]];
}

export function keystroke(generation) {
  record.keystrokeAt.set(generation, performance.now());
  if (record.keystrokeAt.size > 2000) record.keystrokeAt.delete(record.keystrokeAt.keys().next().value);
}

export function modelLoaded() {
  record.firstHeatmapMs = null;
}

/** Every view in sight shows the answer to `generation` (null: not a keystroke's answer). */
export function redrawn(generation, computeMs, renderMs) {
  if (record.firstHeatmapMs == null) {
    record.firstHeatmapMs = performance.now();
    document.body.dataset.firstHeatmapMs = String(Math.round(record.firstHeatmapMs));
  }
  const { keystrokeAt, redraws } = record;
  if (generation != null && keystrokeAt.has(generation)) {
    redraws.push({ generation, ms: performance.now() - keystrokeAt.get(generation), computeMs, renderMs });
    if (redraws.length > 1000) redraws.shift();
  }
}

/** Every view, in sight or not, shows the answer to `generation`. */
export function drawnAll(generation, renderMs) {
  const entry = record.redraws.findLast((r) => r.generation === generation);
  if (!entry || generation == null) return;
  entry.allMs = performance.now() - record.keystrokeAt.get(generation);
  entry.allRenderMs = renderMs;
}
