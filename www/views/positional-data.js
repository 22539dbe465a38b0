// The positional-encoding view's numbers, without the DOM: which encoding a model has, which two
// columns a dimension pair is, how fast a pair turns, and PE(t)·PE(t+Δ) where the data brings none.
//
// The view's input (www/shared/wire.js positional, plus what a later model may say):
//   { kind: 'sinusoidal' | 'learned' | 'none' (default 'sinusoidal'),
//     rows, cols, table (row-major [rows = positions, cols = d_model]),
//     layout: 'interleaved' | 'split' (sinusoidal only; read off the table when absent),
//     starts, dotProducts (PE(t)·PE(t+Δ) for each start t; computed here when absent) }

/** The encodings a model can have: the paper's sines and cosines, a trained table, or none at all. */
export const ENCODINGS = ['sinusoidal', 'learned', 'none'];

/** Start positions of the dot-product curves, where the data names none (as src/model/positional.rs). */
const DOT_STARTS = [0, 5, 10, 20];

/** The encoding `pe` describes: its `kind`, 'sinusoidal' when unnamed, 'none' when there is no table. */
export function kindOf(pe) {
  const kind = pe?.kind ?? 'sinusoidal';
  if (kind === 'none' || !pe?.rows || !pe.cols || !pe.table) return 'none';
  return ENCODINGS.includes(kind) ? kind : 'sinusoidal';
}

/**
 * Where a sinusoidal table keeps its sines and cosines: 'interleaved' (the paper's, sin in 2i and cos
 * in 2i+1) or 'split' (Marian's, sin in i and cos in ⌈d/2⌉+i). Given by the data, else read off
 * position 0, where every sine is 0 and every cosine 1: column 1 is 1 only when interleaved.
 */
export function layoutOf(pe) {
  if (pe.layout === 'interleaved' || pe.layout === 'split') return pe.layout;
  return pe.cols < 2 || pe.table[1] === 1 ? 'interleaved' : 'split';
}

/** How many dimension pairs a table of `cols` columns has. */
export const pairCount = (cols) => Math.floor(cols / 2);

/**
 * Pair `i`'s two columns: { i, first, second }. In a sinusoidal table `first` is the sine and
 * `second` the cosine of one frequency; in a learned table they are dimensions 2i and 2i+1.
 */
export function pairColumns(layout, cols, i) {
  if (layout === 'split') return { i, first: i, second: Math.ceil(cols / 2) + i };
  return { i, first: 2 * i, second: 2 * i + 1 };
}

/** The pair that column `col` belongs to (the inverse of pairColumns), or null past the last pair. */
export function pairOfColumn(layout, cols, col) {
  const half = Math.ceil(cols / 2);
  const i = layout === 'split' ? (col < half ? col : col - half) : Math.floor(col / 2);
  return i >= 0 && i < pairCount(cols) ? i : null;
}

/** 'sin' or 'cos': what column `col` of a sinusoidal table in `layout` holds. */
export function functionOf(layout, cols, col) {
  if (layout === 'split') return col < Math.ceil(cols / 2) ? 'sin' : 'cos';
  return col % 2 ? 'cos' : 'sin';
}

/**
 * How fast a sinusoidal pair turns, read off the table: from position 0 to 1 the pair (sin, cos)
 * turns by its angular frequency ω = 1 / 10000^(2i/d) radians, so ω = atan2(PE(1, sin), PE(1, cos)),
 * and one turn takes 2π/ω positions. { frequency, wavelength }, or nulls for a one-row table.
 */
export function turnOf(pe, pair) {
  if (pe.rows < 2) return { frequency: null, wavelength: null };
  const frequency = Math.atan2(pe.table[pe.cols + pair.first], pe.table[pe.cols + pair.second]);
  return { frequency, wavelength: (2 * Math.PI) / frequency };
}

/** A frequency or wavelength in three significant digits ('6.28', '0.000115', '57100'). */
export function shortNumber(v) {
  if (v == null || !Number.isFinite(v)) return '—';
  return String(Number(v.toPrecision(3)));
}

/** A table value as the view shows it: three decimals, −0 written 0. */
export function valueText(v) {
  if (!Number.isFinite(v)) return String(v);
  const text = v.toFixed(3);
  return text === '-0.000' ? '0.000' : text;
}

/**
 * The pair shown first: for sinusoids, the one whose wavelength is nearest a quarter of the table
 * (a few whole turns on screen); for a learned table, the first.
 */
export function defaultPair(pe, kind, layout) {
  const n = pairCount(pe.cols);
  if (kind !== 'sinusoidal' || pe.rows < 2) return 0;
  let best = 0;
  let bestGap = Number.POSITIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    const { wavelength } = turnOf(pe, pairColumns(layout, pe.cols, i));
    const gap = Math.abs(Math.log(wavelength / (pe.rows / 4)));
    if (gap < bestGap) {
      best = i;
      bestGap = gap;
    }
  }
  return best;
}

/**
 * The pairs drawn faint behind the picked one: 0, 4, 16, 64, … and the last, fast to slow (a
 * factor of 4 apart: more of the fast ones would fill the plot with a grey mesh).
 */
export function referencePairs(n, picked) {
  const pairs = [0];
  for (let i = 4; i < n; i *= 4) pairs.push(i);
  pairs.push(n - 1);
  return [...new Set(pairs)].filter((i) => i >= 0 && i < n && i !== picked);
}

/** Column `col` of the table, one value a position. */
export function columnOf(pe, col) {
  return Array.from({ length: pe.rows }, (_, p) => pe.table[p * pe.cols + col]);
}

/** The value range the curves and the table are drawn in: ±1 for sinusoids, ±the largest |value| else. */
export function rangeOf(pe, kind) {
  if (kind === 'sinusoidal') return { min: -1, max: 1 };
  let most = 0;
  for (let k = 0; k < pe.rows * pe.cols; k++) if (Number.isFinite(pe.table[k])) most = Math.max(most, Math.abs(pe.table[k]));
  return { min: -(most || 1), max: most || 1 };
}

/**
 * PE(t)·PE(t+Δ) for Δ in 0…⌊rows/2⌋−1, for each start t before the table's end (Δ stops at the
 * table's end): the data's own when it brings them, computed here as src/model/positional.rs does
 * otherwise (a learned table comes without them).
 */
export function dotCurves(pe) {
  if (pe.dotProducts && pe.starts) return { starts: pe.starts, curves: pe.dotProducts };
  const { rows, cols, table } = pe;
  const starts = DOT_STARTS.filter((t) => t < rows);
  const maxDelta = Math.floor(rows / 2);
  const curves = starts.map((t) => {
    const values = [];
    for (let delta = 0; delta < maxDelta && t + delta < rows; delta++) {
      let sum = 0;
      for (let c = 0; c < cols; c++) sum += table[t * cols + c] * table[(t + delta) * cols + c];
      values.push(sum);
    }
    return values;
  });
  return { starts, curves };
}
