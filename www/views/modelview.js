// Every layer × head of every kind as thumbnails; click one to focus it.

import { KIND_TITLES, KINDS, maskFor, matrixOffset, stackFor } from '../attention.js';
import { drawMatrix, sizeCanvas } from '../canvas.js';

export function createModelView(container, onSelect) {
  const canvases = new Map(); // "kind/layer/head" → its thumbnail canvas
  const grid = document.createElement('div');
  grid.className = 'grid-kinds';
  const slots = new Map(KINDS.map((kind) => [kind, document.createElement('div')]));
  grid.append(...slots.values());
  container.replaceChildren(grid);

  function thumbnails(trace, selection, kind) {
    const stack = stackFor(trace, kind);
    const wrap = document.createElement('div');
    const title = document.createElement('h3');
    title.className = 'thumbs-title';
    title.textContent = KIND_TITLES[kind];
    const group = document.createElement('div');
    group.className = 'thumbs';
    wrap.append(title, group);
    if (!stack?.queries) {
      const none = document.createElement('span');
      none.className = 'muted';
      none.textContent = 'nothing decoded yet';
      group.append(none);
      return wrap;
    }
    group.style.gridTemplateColumns = `auto repeat(${stack.heads}, auto)`;
    group.append(document.createElement('span'));
    for (let h = 0; h < stack.heads; h++) {
      const label = document.createElement('span');
      label.className = 'axis-label';
      label.textContent = `head ${h}`;
      group.append(label);
    }
    const size = 64;
    const mask = maskFor(trace, kind); // the same for every head
    for (let l = 0; l < stack.layers; l++) {
      const label = document.createElement('span');
      label.className = 'axis-label';
      label.textContent = `layer ${l}`;
      group.append(label);
      for (let h = 0; h < stack.heads; h++) {
        const button = document.createElement('button');
        button.type = 'button';
        button.className = 'thumb';
        button.title = `${KIND_TITLES[kind]}, layer ${l}, head ${h}`;
        button.dataset.kind = kind;
        button.dataset.layer = l;
        button.dataset.head = h;
        if (selection.kind === kind && selection.layer === l && selection.head === h) button.classList.add('selected');
        // Canvases are reused from the last redraw: creating every thumbnail's canvas anew on
        // each keystroke would be most of this view's time.
        const key = `${kind}/${l}/${h}`;
        let canvas = canvases.get(key);
        if (!canvas) {
          canvas = document.createElement('canvas');
          canvases.set(key, canvas);
        }
        const scale = size / Math.max(stack.queries, stack.keys);
        const cssWidth = Math.max(4, Math.round(stack.keys * scale));
        const cssHeight = Math.max(4, Math.round(stack.queries * scale));
        const sized = `${cssWidth}x${cssHeight}@${window.devicePixelRatio || 1}`;
        if (canvas.dataset.size !== sized) {
          sizeCanvas(canvas, cssWidth, cssHeight);
          canvas.dataset.size = sized;
        }
        drawMatrix(canvas, {
          rows: stack.queries,
          cols: stack.keys,
          values: stack.data,
          offset: matrixOffset(stack, l, h),
          mask,
        });
        button.append(canvas);
        button.addEventListener('click', () => onSelect({ kind, layer: l, head: h }));
        group.append(button);
      }
    }
    return wrap;
  }

  // One kind's thumbnails (the page draws the three kinds in separate tasks).
  function renderKind(trace, selection, kind) {
    slots.get(kind).replaceChildren(thumbnails(trace, selection, kind));
  }
  return { renderKind };
}
