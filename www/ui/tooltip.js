// One floating tooltip for the whole page (text only, set with textContent), and one polite
// live region that says things to screen readers.
const tip = () => document.getElementById('tooltip');

// The text the tooltip shows and its width (px), measured once per text: a pointer moving within
// one cell only moves the tooltip, with no text set and no layout forced to read its width.
let shown = { text: null, width: 0 };

/** Show `text` near `point` ({ clientX, clientY }: a pointer event or a position), inside the window. */
export function showTooltip(point, text) {
  const el = tip();
  if (!el) return;
  if (el.hidden || text !== shown.text) {
    el.textContent = text;
    el.hidden = false;
    shown = { text, width: el.offsetWidth };
  }
  const left = Math.max(4, Math.min(window.innerWidth - shown.width - 4, point.clientX + 14));
  el.style.transform = `translate(${left}px, ${point.clientY + 14}px)`;
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
