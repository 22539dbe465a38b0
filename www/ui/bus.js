// The page's one event channel (STYLE.md §16). Actions announce what happened; the modules that
// react to it (the link, the Heads panel's report, the target-language menu, the test harness,
// views that share a hover) listen here instead of being called, so none of them needs to import
// the module that acts. Listeners run at once, in the order they were added, inside `announce`.
//
// Events, by name, and their detail:
//   hover          { items: [{ side: 'src' | 'tgt', index }], from } or null: the tokens one view
//                  points at (a heatmap cell is a query and a key token); `from` names the view, so
//                  it can keep its own, more precise highlight (`hover`, `onHover`). A heatmap says
//                  where too, { items, from, view, cell }: `view` the id of the element it sits in
//                  ('focus-heatmap', 'stages', …), `cell` { row, col } under the pointer or the
//                  keyboard's cursor, null on a label or when it leaves (items [] then)
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
//
// What the person did, for the lesson to hear (each only for the person's own action, never for
// a link being applied or the lesson's own moves):
//   decoder-step   { operation, tokens, finished }: a stepper button, a forced candidate or Play
//                  changed the output, and its answer is now the state's (app/actions.js
//                  decoderStep). operation: 'step' | 'back' | 'reset' | 'runToEnd' | 'force' |
//                  'prefix' | 'play' (each step Play makes); tokens: trace.tgtTokens.length, the
//                  output so far with <s> (the decoder's input rows for the next step); finished:
//                  whether the output has ended. Not announced when no answer was shown (an error)
//   decoding-mode  { mode }: the decoding menu (#sampling-select) changed, announced once the answer
//                  decoded that way is shown; mode: one of the wasm module's decodings, 'greedy' |
//                  'sample' | 'beam' (app/main.js)
//   stages-scale   { scaled }: the stages panel's "divide by √d_k" switch (#stages-scale) flipped,
//                  after the figures were drawn again (views/stages.js)
//   journey-pick   { stack: 'encoder' | 'decoder', layer, position, head, token }: a pick in the
//                  journey view (its selectors, a token chip, a stepper row), clamped to what the
//                  trace has; token: the picked position's token (views/journey.js)
//   journey-look   { block, vector, key, head, dim, value }: the pointer reads a new number of a
//                  journey picture (views/journey-draw.js). block: the section's data-part,
//                  'input' | 'selfAttention' | 'crossAttention' | 'feedForward' | 'output';
//                  vector: 'embedding' | 'positional' | 'input' | 'normed-input' | 'q' | 'key' |
//                  'value' | 'contributions' (Σ α_j v_j) | 'head-output' | 'concat' | 'projected' |
//                  'residual' | 'normed' | 'hidden' | 'output' | 'final-norm' | 'logits'; key: the
//                  key j of a k_j, v_j or α_j v_j (null elsewhere, and over a contribution's sum);
//                  head: the head of q, k, v, α v and a head's output (else null); dim: the index in
//                  the vector; value: the number shown (α_j v_j[dim] for a key's contribution)
//   positional-look { figure: 'curves' | 'table', position, dimension, value }: the pointer, a tap
//                  or the arrow keys read a new point of the positional encoding (views/positional.js)
//   positional-pair { pair, dimensions: [first, second] }: the person picked a dimension pair (the
//                  list, or a click on a column of the table)
// The masks panel's cells need no event of their own: a hover from them is `hover` with the view
// `mask-causal` or `mask-padding` (the ids of their heatmaps' slots, views/masks.js).
const bus = new EventTarget();

/** Tell every listener of `name` that it happened. */
export function announce(name, detail = {}) {
  bus.dispatchEvent(new CustomEvent(name, { detail }));
}

/** Call `listener(detail)` each time `name` is announced. */
export function listen(name, listener) {
  bus.addEventListener(name, (event) => listener(event.detail));
}

/**
 * Point at `items` (none: clear) from the view `from`; a heatmap adds `where` = { view, cell }
 * (the header above), and announces its leaving too.
 */
export function hover(items, from, where = null) {
  if (where) announce('hover', { items: items ?? [], from, view: where.view, cell: where.cell });
  else announce('hover', items?.length ? { items, from } : null);
}

export function onHover(listener) {
  listen('hover', listener);
}

/** The token indices on `side` that `detail` is about. */
export function hoveredOn(detail, side) {
  return new Set(detail ? detail.items.filter((item) => item.side === side).map((item) => item.index) : []);
}
