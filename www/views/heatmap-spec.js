// Functions of a heatmap's spec (www/views/heatmap.js describes it) alone, no element: a cell as
// the hover names it, and the spec with its axes swapped.

/** Cell `at` of `spec`: its query and key tokens (whichever way round the axes are), value and mask. */
export function describeCell(spec, { r, c }) {
  const i = r * spec.cols + c;
  const rowLabel = spec.rowLabels?.[r] ?? String(r);
  const colLabel = spec.colLabels?.[c] ?? String(c);
  const [query, key] = spec.transposed ? [colLabel, rowLabel] : [rowLabel, colLabel];
  return { query, key, masked: Boolean(spec.mask?.[i]), value: spec.values[(spec.offset || 0) + i] };
}

/**
 * `spec` with rows and columns swapped: sizes, labels, sides, index mappings, titles, and the
 * values and mask transposed into new arrays.
 */
export function transposed(spec) {
  const { rows, cols, offset = 0 } = spec;
  const flip = (matrix, from) => {
    const out = new matrix.constructor(rows * cols);
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) out[c * rows + r] = matrix[from + r * cols + c];
    }
    return out;
  };
  return {
    ...spec,
    rows: cols,
    cols: rows,
    values: flip(spec.values, offset),
    offset: 0,
    mask: spec.mask ? flip(spec.mask, 0) : null,
    rowLabels: spec.colLabels,
    colLabels: spec.rowLabels,
    rowSide: spec.colSide,
    colSide: spec.rowSide,
    rowIndex: spec.colIndex,
    colIndex: spec.rowIndex,
    rowTitle: spec.colTitle,
    colTitle: spec.rowTitle,
    transposed: !spec.transposed,
  };
}
