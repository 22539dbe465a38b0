// One floating tooltip for the whole page (text only, set with textContent).
const tip = () => document.getElementById('tooltip');

export function showTooltip(event, text) {
  const el = tip();
  if (!el) return;
  el.textContent = text;
  el.hidden = false;
  el.style.left = `${Math.min(window.innerWidth - 260, event.clientX + 14)}px`;
  el.style.top = `${event.clientY + 14}px`;
}

export function hideTooltip() {
  const el = tip();
  if (el) el.hidden = true;
}
