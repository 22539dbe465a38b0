// The page's one event channel (STYLE.md §16). Actions announce what happened; the modules that
// react to it (the link, the Heads panel's report, the target-language menu, the test harness,
// views that share a hover) listen here instead of being called, so none of them needs to import
// the module that acts. Listeners run at once, in the order they were added, inside `announce`.
//
// Events, by name, and their detail:
//   hover          { items: [{ side: 'src' | 'tgt', index }], from } or null: the tokens one view
//                  points at (a heatmap cell is a query and a key token); `from` names the view, so
//                  it can keep its own, more precise highlight (`hover`, `onHover`)
//   keystroke      { generation, at }: a key in the sentence box (performance.now())
//   answer-shown   { generation, history }: an answer from the worker is the page's now and is
//                  being drawn; `history`: how it enters the browser's history ('sentence', 'push',
//                  'replace'), or null when it does not
//   drawn          {}: every view shows the answer in the state (body[data-ready] is "true")
//   selection      { kind, layer, head }: the head looked at changed
//   heads-off      { spec }: the heads switched off changed (KIND:LAYER:HEAD,…; '' for none)
//   view-changed   {}: a view's own setting changed (a toggle, the transposed heatmap, the head
//                  view's mode, the lesson's step): the link says so
//   model-loaded   { model, info }: the page is about `model` now; `info`: the worker's init answer
//   worker-started { worker }: a new worker, before any request is sent to it (app/client.js)
const bus = new EventTarget();

/** Tell every listener of `name` that it happened. */
export function announce(name, detail = {}) {
  bus.dispatchEvent(new CustomEvent(name, { detail }));
}

/** Call `listener(detail)` each time `name` is announced. */
export function listen(name, listener) {
  bus.addEventListener(name, (event) => listener(event.detail));
}

/** Point at `items` (none: clear) from the view `from`. */
export function hover(items, from) {
  announce('hover', items?.length ? { items, from } : null);
}

export function onHover(listener) {
  listen('hover', listener);
}

/** The token indices on `side` that `detail` is about. */
export function hoveredOn(detail, side) {
  return new Set(detail ? detail.items.filter((item) => item.side === side).map((item) => item.index) : []);
}
