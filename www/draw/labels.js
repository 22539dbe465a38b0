// How a column label stands: CJK characters stay upright (stacked top to bottom), a short token
// that fits its column lies flat, anything else is turned a quarter so it reads bottom to top.
// The page's heatmap labels and the exported figures ask the same question here. On the page,
// labels of cells too small for a readable font are thinned out (labelSpacing).

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\u3000-\u303f\uff00-\uffef]/u;

/** Whether `token` holds CJK characters (which must not lie on their side). */
export const isCjk = (token) => CJK.test(token);

/**
 * 'flat' (horizontal), 'upright' (stacked, CJK) or 'sideways' (rotated 90°) for a column label
 * `token` in a column `cell` px wide, drawn at `fontSize` px.
 */
export function labelOrientation(token, cell, fontSize) {
  const chars = [...token];
  // A CJK character is about 1 em wide, a Latin one about 0.6 em.
  const width = chars.reduce((sum, ch) => sum + (isCjk(ch) ? 1 : 0.62) * fontSize, 0);
  if (chars.length <= 2 && width <= cell) return 'flat';
  return isCjk(token) ? 'upright' : 'sideways';
}

/** The smallest font (px) of a heatmap's labels on the page: smaller is not readable on a screen. */
const MIN_LABEL_FONT = 10;

/**
 * How the page labels rows or columns `cell` px apart: at `fontSize` px, every `every`-th token
 * shown. Cells too small for MIN_LABEL_FONT show every second or third token at that size, at
 * least 1.4 em apart, so that a 128-token axis stays readable.
 */
export function labelSpacing(cell) {
  const fontSize = Math.min(13, cell - 2);
  if (fontSize >= MIN_LABEL_FONT) return { fontSize, every: 1 };
  return { fontSize: MIN_LABEL_FONT, every: Math.ceil((1.4 * MIN_LABEL_FONT) / cell) };
}

/** "query ↓ (source token)": an axis title with the arrow of the way it runs; '' without one. */
export function axisTitle(title, arrow) {
  return title ? `${title.role} ${arrow} (${title.tokens})` : '';
}
