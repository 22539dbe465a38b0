// Linked hover across views: one shared event target.
// 'hover' detail: { side: 'src' | 'tgt', index } or null to clear.
export const bus = new EventTarget();

export function hover(detail) {
  bus.dispatchEvent(new CustomEvent('hover', { detail }));
}

export function onHover(listener) {
  bus.addEventListener('hover', (event) => listener(event.detail));
}
