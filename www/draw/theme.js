// The page's palette, in one place: the custom properties of style.css's :root, read once. The
// canvases and the exported figures draw with the colours the stylesheet gives the page.

/** Each colour's custom property. */
const PROPERTIES = {
  background: '--panel',
  text: '--text',
  muted: '--muted',
  line: '--line',
  accent: '--accent',
  link: '--link',
  error: '--error',
  good: '--good',
  hatch: '--hatch', // the stroke across a cell hidden by a mask
};

/** How many colours a series (a head, a curve) can take before they repeat: --series-1 … --series-N. */
const SERIES = 8;

const read = new Map(); // 'theme' → the palette, once read

/** { background, text, muted, line, accent, link, error, good, hatch, series: [colour, …] } as CSS colours. */
export function theme() {
  if (!read.has('theme')) {
    const style = getComputedStyle(document.documentElement);
    const value = (name) => style.getPropertyValue(name).trim();
    const palette = Object.fromEntries(Object.entries(PROPERTIES).map(([key, name]) => [key, value(name)]));
    palette.series = Array.from({ length: SERIES }, (_, i) => value(`--series-${i + 1}`));
    read.set('theme', Object.freeze(palette));
  }
  return read.get('theme');
}

/** The colour of series `k` (a head, a curve), repeating after the palette's last. */
export const seriesColour = (k) => theme().series[k % SERIES];

/** A '#rrggbb' colour at opacity `alpha`, as 'rgba(r,g,b,alpha)'. */
export function withAlpha(colour, alpha) {
  const [r, g, b] = [1, 3, 5].map((i) => Number.parseInt(colour.slice(i, i + 2), 16));
  return `rgba(${r},${g},${b},${alpha})`;
}
