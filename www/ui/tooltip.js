// One floating tooltip for the whole page (text only, set with textContent), and one polite
// live region that says things to screen readers.
const tip = () => document.getElementById('tooltip');

/** Show `text` near `point` ({ clientX, clientY }: a pointer event or a position), inside the window. */
export function showTooltip(point, text) {
  const el = tip();
  if (!el) return;
  el.textContent = text;
  el.hidden = false;
  const width = el.offsetWidth;
  el.style.left = `${Math.max(4, Math.min(window.innerWidth - width - 4, point.clientX + 14))}px`;
  el.style.top = `${point.clientY + 14}px`;
}

/** Say `text` through the page's live region (#announcer). */
export function say(text) {
  const region = document.getElementById('announcer');
  if (region) region.textContent = text;
}

export function hideTooltip() {
  const el = tip();
  if (el) el.hidden = true;
}
