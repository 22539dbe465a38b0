// A heatmap spec (see heatmap.js) as a vector figure: one <rect class="cell"> per cell, the token
// labels and axis titles as <text>, the colour legend as a gradient. The same spec draws the canvas.
import { cellColour, cellSize, formatValue } from '../draw/canvas.js';
import { axisTitle, labelOrientation } from '../draw/labels.js';
import { figure, measure, svgElement, textEl } from '../draw/svg.js';
import { theme } from '../draw/theme.js';

const LEGEND_WIDTH = 120;

/** The side (px) of `spec`'s cells, on the page and in the figure: its own `cell`, else sized to fit. */
export const specCell = (spec) => spec.cell || cellSize(Math.max(spec.rows, spec.cols));

/** The figure of `spec` (as heatmap.js renders it) under an optional `caption`. */
export function heatmapFigure(spec, caption = '') {
  const { rows, cols } = spec;
  const cell = specCell(spec);
  const colours = theme();
  const fontSize = Math.max(7, Math.min(13, cell - 2));
  const rowLabels = spec.rowLabels || [];
  const colLabels = spec.colLabels || [];
  const orientations = colLabels.map((token) => labelOrientation(token, cell, fontSize));
  const colLabelHeight = Math.min(
    90,
    Math.max(
      fontSize,
      ...colLabels.map((token, j) => {
        if (orientations[j] === 'flat') return fontSize;
        if (orientations[j] === 'upright') return [...token].length * fontSize * 1.1;
        return measure(token, fontSize);
      }),
    ),
  );
  const rowLabelWidth = Math.min(140, Math.max(0, ...rowLabels.map((token) => measure(token, fontSize))));
  const captionHeight = caption ? 18 : 0;
  const colTitle = axisTitle(spec.colTitle, '→');
  const rowTitle = axisTitle(spec.rowTitle, '↓');
  const titleSize = 11;
  const top = captionHeight + (colTitle ? 16 : 0) + colLabelHeight + 6;
  const left = (rowTitle ? 16 : 0) + rowLabelWidth + 6;
  const matrixWidth = cols * cell;
  const matrixHeight = rows * cell;
  const legendLabel = spec.legendLabel || '';
  const legendWidth = 16 + 2 * 50 + LEGEND_WIDTH + 8 + measure(legendLabel, 11);
  const width =
    Math.max(left + matrixWidth, legendWidth, captionHeight ? measure(caption, 13) : 0, left + measure(colTitle, titleSize)) + 4;
  const height = top + matrixHeight + 30;
  const out = figure(width, height);
  const { svg } = out;
  if (caption) svg.append(textEl(caption, { x: 0, y: 13, fill: colours.text, 'font-size': 13 }));
  if (colTitle) svg.append(textEl(colTitle, { x: left, y: captionHeight + 12, fill: colours.muted, 'font-size': titleSize }));
  if (rowTitle) {
    // Turned a quarter along the matrix, as small as it must be to fit beside it (down to 7 px).
    const cy = top + matrixHeight / 2;
    const size = Math.max(7, Math.min(titleSize, (titleSize * (matrixHeight + 24)) / measure(rowTitle, titleSize)));
    svg.append(
      textEl(rowTitle, {
        x: 10,
        y: cy,
        fill: colours.muted,
        'font-size': size,
        'text-anchor': 'middle',
        transform: `rotate(-90 10 ${cy})`,
      }),
    );
  }
  // Row labels, right-aligned against the matrix.
  rowLabels.forEach((token, i) => {
    svg.append(
      textEl(token, {
        x: left - 4,
        y: top + (i + 0.5) * cell,
        fill: colours.muted,
        'font-size': fontSize,
        'text-anchor': 'end',
        'dominant-baseline': 'central',
        'xml:space': 'preserve',
      }),
    );
  });
  svg.append(...colLabels.map((token, j) => columnLabel(token, orientations[j], left + (j + 0.5) * cell, top - 4, fontSize)));
  // The cells.
  const cells = svgElement('g', { class: 'cells' });
  const hatch = [];
  const offset = spec.offset || 0;
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const i = r * cols + c;
      const masked = Boolean(spec.mask?.[i]);
      const x = left + c * cell;
      const y = top + r * cell;
      cells.append(
        svgElement('rect', { class: 'cell', x, y, width: cell, height: cell, fill: cellColour(spec.values[offset + i], masked, spec) }),
      );
      if (masked && cell >= 4) hatch.push(`M${x},${y + cell}L${x + cell},${y}`);
    }
  }
  svg.append(cells);
  if (hatch.length) svg.append(svgElement('path', { class: 'hatch', d: hatch.join(''), stroke: theme().hatch, 'stroke-width': 1 }));
  svg.append(legend(spec, rowTitle ? 16 : 0, top + matrixHeight + 10, legendLabel));
  return out;
}

function columnLabel(token, orientation, x, bottom, fontSize) {
  const common = { fill: theme().muted, 'font-size': fontSize, 'xml:space': 'preserve' };
  if (orientation === 'flat') return textEl(token, { ...common, x, y: bottom, 'text-anchor': 'middle' });
  if (orientation === 'sideways') {
    return textEl(token, { ...common, x, y: bottom, 'dominant-baseline': 'central', transform: `rotate(-90 ${x} ${bottom})` });
  }
  // Upright: one character under the other, the last one nearest the matrix.
  const chars = [...token];
  const text = svgElement('text', { ...common, 'text-anchor': 'middle' });
  chars.forEach((ch, k) => {
    const span = svgElement('tspan', { x, y: bottom - (chars.length - 1 - k) * fontSize * 1.1 });
    span.textContent = ch;
    text.append(span);
  });
  return text;
}

const gradients = { made: 0 }; // gradient ids stay unique when figures are nested in one file

function legend(spec, x, y, label) {
  const { min = 0, max = 1 } = spec;
  const colours = theme();
  const g = svgElement('g', { class: 'legend' });
  const id = `legend-gradient-${++gradients.made}`;
  const gradient = svgElement('linearGradient', { id, x1: 0, x2: 1, y1: 0, y2: 0 });
  for (let k = 0; k <= 16; k++) {
    const v = min + ((max - min) * k) / 16;
    gradient.append(svgElement('stop', { offset: k / 16, 'stop-color': cellColour(v, false, spec) }));
  }
  const defs = svgElement('defs');
  defs.append(gradient);
  const minText = formatValue(min);
  const x0 = x + measure(minText, 11) + 6;
  g.append(
    defs,
    textEl(minText, { x, y: y + 9, fill: colours.muted, 'font-size': 11 }),
    svgElement('rect', { class: 'legend-bar', x: x0, y, width: LEGEND_WIDTH, height: 10, fill: `url(#${id})`, stroke: colours.line }),
    textEl(`${formatValue(max)}  ${label}`, { x: x0 + LEGEND_WIDTH + 6, y: y + 9, fill: colours.muted, 'font-size': 11 }),
  );
  return g;
}
