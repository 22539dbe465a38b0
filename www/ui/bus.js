// Linked hover across views: one shared event target. One hover can be about several tokens (a
// heatmap cell is a query token and a key token):
//   detail = { items: [{ side: 'src' | 'tgt', index }], from }, or null to clear.
// `from` names the view that sent it, so that view can keep its own, more precise highlight.
const bus = new EventTarget();

export function hover(items, from) {
  bus.dispatchEvent(new CustomEvent('hover', { detail: items?.length ? { items, from } : null }));
}

export function onHover(listener) {
  bus.addEventListener('hover', (event) => listener(event.detail));
}

/** The token indices on `side` that `detail` is about. */
export function hoveredOn(detail, side) {
  return new Set(detail ? detail.items.filter((item) => item.side === side).map((item) => item.index) : []);
}
