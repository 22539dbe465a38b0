// Drawing that grows with the model and the sentence, split into slices so that no main-thread
// task grows with them: the page's budget is no task over 50 ms, and a 6-layer model with 8 heads
// and 128 tokens a side is millions of cells and thousands of elements. A view draws
// such work in a generator, yielding where it may stop (after a layer of thumbnails, a block of
// rows); the page runs a few slices a task and lets the browser lay out, paint and answer input
// in between. A newer drawing makes an older one stop where it is.

/** Slices run in one task until this much time has gone (layout and paint come after it). */
const SLICE_MS = 12;

/**
 * What a slice yields when what it changed needs the browser's layout before more is added
 * (rows of a table, a block of elements): the task ends there, whatever the time.
 */
export const TASK_END = Symbol('end of task');

/**
 * Resolves in a later task, once the browser has had its turn (input first, and a frame when one
 * is due). `scheduler.yield()` where the browser has it (Chrome 129+), else a message to
 * ourselves. Not `setTimeout(0)`: nested timers wait at least 4 ms each, and a redraw of every
 * view chains a dozen tasks or more, which cost the page a quarter of its keystroke-to-redraw
 * time doing nothing.
 */
export const nextTask = () => (globalThis.scheduler?.yield ? globalThis.scheduler.yield() : viaMessage());

const waiting = [];
let channel = null;

function viaMessage() {
  if (!channel) {
    channel = new MessageChannel();
    channel.port1.onmessage = () => waiting.shift()?.();
  }
  return new Promise((resolve) => {
    waiting.push(resolve);
    channel.port2.postMessage(null);
  });
}

/**
 * Run `slices` (a generator's iterator) until it ends, SLICE_MS have gone, or a slice yields
 * TASK_END, whichever is first; true when it ended.
 */
export function runSome(slices) {
  const start = performance.now();
  for (;;) {
    const { done, value } = slices.next();
    if (done) return true;
    if (value === TASK_END || performance.now() - start >= SLICE_MS) return false;
    // What the slice changed is laid out now and counts against the task: a slice cheap in script
    // may be dear in layout (a heatmap's 257 labels: 6-28 ms), and two of them in one task were a
    // 59 ms task of the large model's decode. Laying out a page with nothing changed costs nothing.
    layOut();
    if (performance.now() - start >= SLICE_MS) return false;
  }
}

/** Bring the page's style and layout up to date now, in this task (reading a size does it); nothing outside a page. */
export function layOut() {
  if (globalThis.document) void document.documentElement.offsetHeight;
}

/**
 * Run `slices` to its end across tasks, the first ones at once. `current()` is asked before
 * each later task: once it is false the rest is dropped. Resolves to true when every slice ran.
 */
export async function runSlices(slices, current = () => true) {
  while (!runSome(slices)) {
    await nextTask();
    if (!current()) return false;
  }
  return true;
}

/**
 * `slices` that stop once `current()` is false: for a view that may be drawn again before its last
 * drawing has ended, by more than one caller (the page, and a click inside the view).
 */
export function* whileCurrent(slices, current) {
  for (const value of slices) {
    yield value;
    if (!current()) return;
  }
}

/** Run every slice of `slices` now (a figure to export, a redraw that cannot wait). */
export function runAll(slices) {
  while (!slices.next().done);
}
