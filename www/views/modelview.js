// Every layer × head of every kind as thumbnails; click one to focus it. The <s>/</s> key columns
// can be left out, as in the focused heatmap.

import {
  HEAD_SUMMARIES,
  headStack,
  KIND_TITLES,
  KINDS,
  keepColumns,
  maskFor,
  matrixOffset,
  sinkColumns,
  stackFor,
  withoutSinks,
} from '../attention.js';
import { drawMatrix, sizeCanvas } from '../canvas.js';
import { el } from '../dom.js';

export function createModelView(container, onSelect) {
  const canvases = new Map(); // "kind/layer/head" → its thumbnail canvas
  const slots = new Map(KINDS.map((kind) => [kind, el('div')]));
  container.replaceChildren(el('div', { className: 'grid-kinds' }, ...slots.values()));

  function thumbnails(trace, selection, kind, special, analysis) {
    const stack = stackFor(trace, kind);
    const group = el('div', { className: 'thumbs' });
    const wrap = el('div', {}, el('h3', { className: 'thumbs-title', text: KIND_TITLES[kind] }), group);
    if (!stack?.queries) {
      group.append(el('span', { className: 'muted', text: 'nothing decoded yet' }));
      return wrap;
    }
    // The real heads, then the mean and max over them (from the trace's analysis, when there is one).
    const heads = [...Array(stack.heads).keys(), ...(analysis ? Object.keys(HEAD_SUMMARIES) : [])];
    group.style.gridTemplateColumns = `auto repeat(${heads.length}, auto)`;
    group.append(el('span'), ...heads.map((h) => el('span', { className: 'axis-label', text: Number.isInteger(h) ? `head ${h}` : h })));
    const size = 64;
    const mask = maskFor(trace, kind); // the same for every head
    const sinks = special ? sinkColumns(trace, kind, special) : [];
    for (let l = 0; l < stack.layers; l++) {
      group.append(el('span', { className: 'axis-label', text: `layer ${l}` }));
      for (const h of heads) {
        const drawn = headStack(trace, kind, analysis, h);
        const button = el('button', {
          className: 'thumb',
          title: `${KIND_TITLES[kind]}, layer ${l}, ${drawn.label}`,
          attrs: { type: 'button' },
          data: { kind, layer: l, head: h },
        });
        if (selection.kind === kind && selection.layer === l && selection.head === h) button.classList.add('selected');
        // Canvases are reused from the last redraw: creating every thumbnail's canvas anew on
        // each keystroke would be most of this view's time.
        const key = `${kind}/${l}/${h}`;
        let canvas = canvases.get(key);
        if (!canvas) {
          canvas = el('canvas');
          canvases.set(key, canvas);
        }
        const matrix = thumbnailMatrix(drawn.stack, l, drawn.head, mask, sinks);
        const scale = size / Math.max(matrix.rows, matrix.cols);
        const cssWidth = Math.max(4, Math.round(matrix.cols * scale));
        const cssHeight = Math.max(4, Math.round(matrix.rows * scale));
        const sized = `${cssWidth}x${cssHeight}@${window.devicePixelRatio || 1}`;
        if (canvas.dataset.size !== sized) {
          sizeCanvas(canvas, cssWidth, cssHeight);
          canvas.dataset.size = sized;
        }
        drawMatrix(canvas, matrix);
        button.append(canvas);
        button.addEventListener('click', () => onSelect({ kind, layer: l, head: h }));
        group.append(button);
      }
    }
    return wrap;
  }

  // One kind's thumbnails (the page draws the three kinds in separate tasks). `special`: the
  // config's { bosId, eosId } to leave those key columns out, or null; `analysis`: the trace's
  // (www/wire.js analysis), for a mean and a max column, or null.
  function renderKind(trace, selection, kind, special = null, analysis = null) {
    slots.get(kind).replaceChildren(thumbnails(trace, selection, kind, special, analysis));
  }
  return { renderKind };
}

/** One head's matrix for drawMatrix, without the `sinks` key columns (rows renormalised) if any. */
function thumbnailMatrix(stack, layer, head, mask, sinks) {
  const { queries: rows, keys: cols } = stack;
  const offset = matrixOffset(stack, layer, head);
  if (!sinks.length) return { rows, cols, values: stack.data, offset, mask };
  const pruned = withoutSinks(stack.data.subarray(offset, offset + rows * cols), rows, cols, sinks);
  return { rows, cols: pruned.keep.length, values: pruned.values, mask: mask && keepColumns(mask, rows, cols, pruned.keep) };
}
