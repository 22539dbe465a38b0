// Every layer × head of every kind as thumbnails; click one to focus it. The <s>/</s> key columns
// can be left out, as in the focused heatmap. Heads can be switched off (the "Switch heads off"
// mode, where a click toggles a head, or X on a focused thumbnail), and each thumbnail carries
// marks drawn over it, never into its canvas: off, its importance rank for the shown output, and
// its roles from heads.json (with a legend); hovering or focusing it tells all three in words.

import { cellColour, cpuCanvas, drawMatrix, rasterizeNow, sizeCanvas } from '../draw/canvas.js';
import { figure as emptyFigure, row, svgElement, textEl } from '../draw/svg.js';
import { theme } from '../draw/theme.js';
import { el } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { hideTooltip, showTooltip } from '../ui/tooltip.js';
import {
  HEAD_SUMMARIES,
  headStack,
  keepColumns,
  kindTitle,
  maskFor,
  matrixOffset,
  sinkColumns,
  stackFor,
  withoutSinks,
} from './attention.js';
import { headKey, headTooltip, ranks } from './heads-text.js';

/**
 * `createModelView(container, { onSelect, onToggle })`: `onSelect({ kind, layer, head })` focuses
 * a head (or a summary over heads); `onToggle({ kind, layer, head })` switches a head off or on.
 */
export function createModelView(container, { onSelect, onToggle }) {
  // kind → the element its grid goes in, made the first time the kind is drawn: side by side in
  // the order the page draws them (the module's attention kinds).
  const slots = new Map();
  const kinds = el('div', { className: 'grid-kinds' });
  const bar = toolbar();
  container.replaceChildren(bar.element, kinds);
  const slotOf = (kind) => {
    if (!slots.has(kind)) slots.set(kind, kinds.appendChild(el('div')));
    return slots.get(kind);
  };
  const grids = new Map(); // kind → its grid (makeGrid), kept while its layers and heads stay
  const shown = new Map(); // kind → the arguments it was last drawn with
  let marks = { off: [], importance: null, study: null }; // what `mark` was last given
  let rankOf = new Map(); // its importance ranks (heads-text.js ranks)

  // A thumbnail's words, in its tooltip on hover and on keyboard focus.
  const tips = thumbTips((head) => (Number.isInteger(head.head) ? headTooltip(head, marks, rankOf) : thumbCaption(head)));
  const actions = { onSelect, onToggle, switching: () => bar.switching(), tips };

  /**
   * A kind's grid: its title, a header row of head names, and a row per layer of its name and a
   * thumbnail button for each head. Made once per shape: a redraw changes only texts and pixels.
   */
  function makeGrid(kind, layers, heads) {
    const title = el('h3', { className: 'thumbs-title' });
    const group = el('div', { className: 'thumbs' });
    group.style.gridTemplateColumns = `auto repeat(${heads.length}, auto)`;
    const headLabels = heads.map(() => el('span', { className: 'axis-label' }));
    const layerLabels = [];
    const buttons = []; // [layer][k]: the button of head heads[k]
    group.append(el('span'), ...headLabels);
    for (let l = 0; l < layers; l++) {
      layerLabels.push(el('span', { className: 'axis-label' }));
      buttons.push(
        heads.map((h) => {
          const button = el('button', { className: 'thumb', attrs: { type: 'button' }, data: { kind, layer: l, head: h } }, cpuCanvas());
          if (Number.isInteger(h)) button.append(...Object.values(overlays()));
          listen(button, { kind, layer: l, head: h }, actions);
          return button;
        }),
      );
      group.append(layerLabels[l], ...buttons[l]);
    }
    return { key: `${layers}/${heads.join()}`, wrap: el('div', {}, title, group), title, headLabels, layerLabels, buttons, heads };
  }

  /** Mark every real head of `grid` (of `kind`) as `marks` says. */
  function markGrid(kind, grid) {
    grid.buttons.forEach((row, layer) => {
      row.forEach((button, k) => {
        const head = grid.heads[k];
        if (Number.isInteger(head)) markThumb(button, { kind, layer, head }, marks, rankOf);
      });
    });
  }

  /**
   * Show `next` on the thumbnails: { off: the heads switched off, importance: each head's for the
   * shown output (or null), study: heads.json (or null) }. Only the marks change.
   */
  function mark(next) {
    marks = next;
    rankOf = ranks(next.importance);
    bar.legend(next.study, next.off.length);
    for (const [kind, grid] of grids) markGrid(kind, grid);
    tips.refresh();
  }

  /**
   * One kind's thumbnails (the page draws the three kinds in separate tasks), a layer a slice
   * (www/ui/slices.js). `special`: the config's { bosId, eosId } to leave those key columns out, or
   * null; `analysis`: the trace's (www/shared/wire.js analysis), for a mean and a max column, or null.
   */
  function* renderKind(trace, selection, kind, special = null, analysis = null) {
    shown.set(kind, [trace, selection, kind, special, analysis]);
    const slot = slotOf(kind);
    const stack = stackFor(trace, kind);
    if (!stack?.queries) {
      grids.delete(kind);
      const group = el('div', { className: 'thumbs' }, el('span', { className: 'muted', text: t('modelView.nothingYet') }));
      slot.replaceChildren(el('div', {}, el('h3', { className: 'thumbs-title', text: kindTitle(kind) }), group));
      return;
    }
    // The real heads, then the mean and max over them (from the trace's analysis, when there is one).
    const heads = [...Array(stack.heads).keys(), ...(analysis ? Object.keys(HEAD_SUMMARIES) : [])];
    let grid = grids.get(kind);
    if (grid?.key !== `${stack.layers}/${heads.join()}`) {
      grid = makeGrid(kind, stack.layers, heads);
      grids.set(kind, grid);
      slot.replaceChildren(grid.wrap);
      markGrid(kind, grid);
    }
    grid.title.textContent = kindTitle(kind);
    heads.forEach((h, k) => {
      grid.headLabels[k].textContent = headName(h);
    });
    const mask = maskFor(trace, kind); // the same for every head
    const sinks = special ? sinkColumns(trace, kind, special) : [];
    for (let l = 0; l < stack.layers; l++) {
      grid.layerLabels[l].textContent = t('modelView.layer', { layer: l });
      heads.forEach((h, k) => {
        const drawn = headStack(trace, kind, analysis, h);
        const button = grid.buttons[l][k];
        if (!Number.isInteger(h)) button.setAttribute('aria-label', thumbCaption({ kind, layer: l, head: h }));
        button.classList.toggle('selected', selection.kind === kind && selection.layer === l && selection.head === h);
        drawThumbnail(button.firstChild, thumbnailMatrix(drawn.stack, l, drawn.head, mask, sinks));
      });
      yield;
    }
  }

  /** Every kind's thumbnails as drawn, side by side, as a vector figure (one <rect> a cell). */
  function figure() {
    const parts = [...slots.keys()].filter((kind) => shown.has(kind)).map((kind) => kindFigure(...shown.get(kind)));
    return parts.length ? row(parts, { gap: 28 }) : null;
  }
  return { renderKind, figure, mark };
}

/**
 * The tooltip of one thumbnail at a time: `show(point, head)` with `describe(head)`'s text, `hide()`,
 * and `refresh()` to write the text again (the marks changed under it).
 */
function thumbTips(describe) {
  let shown = null; // { point, head }
  const show = (point, head) => {
    shown = { point: { clientX: point.clientX, clientY: point.clientY }, head };
    showTooltip(point, describe(head));
  };
  const hide = () => {
    shown = null;
    hideTooltip();
  };
  return { show, hide, refresh: () => shown && show(shown.point, shown.head) };
}

/**
 * A thumbnail button of `head` acts on a click, Enter or Space (focus it, or in the "Switch heads
 * off" mode toggle it) and, for a real head, on X (toggle it); it shows its tooltip while hovered or focused.
 */
function listen(button, head, { onSelect, onToggle, switching, tips }) {
  const real = Number.isInteger(head.head);
  button.addEventListener('click', () => (real && switching() ? onToggle(head) : onSelect(head)));
  button.addEventListener('keydown', (event) => {
    if (!real || event.key.toLowerCase() !== 'x' || event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();
    onToggle(head);
  });
  button.addEventListener('pointerenter', (event) => tips.show(event, head));
  button.addEventListener('pointerleave', tips.hide);
  button.addEventListener('focus', () => {
    const box = button.getBoundingClientRect();
    tips.show({ clientX: box.left, clientY: box.bottom }, head);
  });
  button.addEventListener('blur', tips.hide);
}

/** A thumbnail's name: "cross-attention, layer 2, head 1" (or the summary's). */
function thumbCaption({ kind, layer, head }) {
  const label = Number.isInteger(head) ? t('head.one', { head }) : t('head.summary', { summary: t(`head.${head}`) });
  return t('focus.caption', { kind: kindTitle(kind), layer, head: label });
}

/** The marks over a real head's thumbnail: its importance rank and bar, its roles, and "off". */
function overlays() {
  return {
    rank: el('span', { className: 'thumb-rank' }),
    bar: el('span', { className: 'thumb-bar' }),
    roles: el('span', { className: 'thumb-roles' }),
    off: el('span', { className: 'thumb-off' }),
  };
}

/** Mark `button` (of `head`) as `marks` and `rankOf` (heads-text.js ranks) say. */
function markThumb(button, head, marks, rankOf) {
  const [rank, bar, roles, offBadge] = button.querySelectorAll('.thumb-rank, .thumb-bar, .thumb-roles, .thumb-off');
  const key = headKey(head);
  const off = marks.off.some((h) => headKey(h) === key);
  button.classList.toggle('off', off);
  button.setAttribute('aria-pressed', String(off));
  button.setAttribute('aria-label', off ? t('modelView.thumbOff', { head: thumbCaption(head) }) : thumbCaption(head));
  offBadge.textContent = t('heads.offBadge');
  const ranked = rankOf.get(key);
  rank.hidden = !ranked;
  bar.hidden = !ranked;
  rank.textContent = ranked ? String(ranked.rank) : '';
  bar.style.width = ranked ? `${Math.round(ranked.share * 100)}%` : '0';
  const entry = marks.study?.heads.find((h) => headKey(h) === key);
  const playing = entry?.roles ?? [];
  if (roles.dataset.roles !== playing.join()) {
    roles.dataset.roles = playing.join();
    roles.replaceChildren(...playing.map((role) => el('i', { className: `role-${role}` })));
  }
}

/** The roles heads.json can name, in the order of the legend. */
const ROLES = ['previous', 'same', 'next', 'sink', 'broad', 'alignment'];

/** The view's toolbar: the "Switch heads off" mode, how many are off, and the roles' legend. */
function toolbar() {
  const mode = el('button', { className: 'heads-mode', i18n: 'modelView.switchMode', attrs: { type: 'button', 'aria-pressed': 'false' } });
  const help = el('span', { className: 'muted', i18n: 'modelView.switchModeHelp' });
  const count = el('span', { className: 'muted heads-off-count' });
  const legendBox = el('span', { className: 'role-legend' });
  const element = el('div', { className: 'row model-view-bar' }, mode, help, count, legendBox);
  mode.addEventListener('click', () => {
    const on = mode.getAttribute('aria-pressed') !== 'true';
    mode.setAttribute('aria-pressed', String(on));
    element.classList.toggle('switching', on);
  });
  /** The legend of `study`'s roles (none without it) and the count of heads off. */
  function legend(study, offCount) {
    count.textContent = offCount ? t('modelView.offCount', { count: offCount }) : '';
    const present = new Set(study?.heads.flatMap((h) => h.roles) ?? []);
    const items = ROLES.filter((role) => present.has(role)).map((role) =>
      el('span', { className: 'role-key' }, el('i', { className: `role-${role}` }), t(`heads.role.${role}`)),
    );
    legendBox.replaceChildren(...(items.length ? [t('modelView.roles', { sentences: study.sentences }), ...items] : []));
  }
  return { element, legend, switching: () => mode.getAttribute('aria-pressed') === 'true' };
}

/** `matrix` (thumbnailMatrix) on `canvas`, its longer side THUMB px; resized only when its size changes. */
function drawThumbnail(canvas, matrix) {
  const scale = THUMB / Math.max(matrix.rows, matrix.cols);
  const cssWidth = Math.max(4, Math.round(matrix.cols * scale));
  const cssHeight = Math.max(4, Math.round(matrix.rows * scale));
  sizeCanvas(canvas, cssWidth, cssHeight);
  drawMatrix(canvas, matrix);
  rasterizeNow(canvas.getContext('2d')); // here, in its slice, not all 180 at once when the view is scrolled to
}

/** One head's matrix for drawMatrix, without the `sinks` key columns (rows renormalised) if any. */
function thumbnailMatrix(stack, layer, head, mask, sinks) {
  const { queries: rows, keys: cols } = stack;
  const offset = matrixOffset(stack, layer, head);
  if (!sinks.length) return { rows, cols, values: stack.data, offset, mask };
  const pruned = withoutSinks(stack.data.subarray(offset, offset + rows * cols), rows, cols, sinks);
  return { rows, cols: pruned.keep.length, values: pruned.values, mask: mask && keepColumns(mask, rows, cols, pruned.keep) };
}

/** A column's title: "head 2", or the summary's name. */
const headName = (h) => (Number.isInteger(h) ? t('head.one', { head: h }) : t(`head.${h}`));

const THUMB = 64; // px: a thumbnail's longer side
const GAP = 6;

/** One kind's layer × head grid of thumbnails, the focused one outlined. */
function kindFigure(trace, selection, kind, special, analysis) {
  const stack = stackFor(trace, kind);
  if (!stack?.queries) return null;
  const heads = [...Array(stack.heads).keys(), ...(analysis ? Object.keys(HEAD_SUMMARIES) : [])];
  const left = 52;
  const top = 36;
  const colours = theme();
  const out = emptyFigure(left + heads.length * (THUMB + GAP), top + stack.layers * (THUMB + GAP));
  const { svg } = out;
  svg.append(textEl(kindTitle(kind), { x: 0, y: 13, fill: colours.text, 'font-size': 13 }));
  heads.forEach((h, k) => {
    const label = headName(h);
    svg.append(
      textEl(label, { x: left + k * (THUMB + GAP) + THUMB / 2, y: top - 6, fill: colours.muted, 'font-size': 11, 'text-anchor': 'middle' }),
    );
  });
  const mask = maskFor(trace, kind);
  const sinks = special ? sinkColumns(trace, kind, special) : [];
  for (let l = 0; l < stack.layers; l++) {
    const y0 = top + l * (THUMB + GAP);
    svg.append(
      textEl(t('modelView.layer', { layer: l }), {
        x: 0,
        y: y0 + THUMB / 2,
        fill: colours.muted,
        'font-size': 11,
        'dominant-baseline': 'central',
      }),
    );
    heads.forEach((h, k) => {
      const drawn = headStack(trace, kind, analysis, h);
      const matrix = thumbnailMatrix(drawn.stack, l, drawn.head, mask, sinks);
      const cell = THUMB / Math.max(matrix.rows, matrix.cols);
      const x0 = left + k * (THUMB + GAP);
      const g = svgElement('g', { class: 'thumbnail', 'data-layer': l, 'data-head': h });
      for (let r = 0; r < matrix.rows; r++) {
        for (let c = 0; c < matrix.cols; c++) {
          const i = r * matrix.cols + c;
          const v = matrix.values[(matrix.offset || 0) + i];
          g.append(
            svgElement('rect', {
              class: 'cell',
              x: x0 + c * cell,
              y: y0 + r * cell,
              width: cell,
              height: cell,
              fill: cellColour(v, matrix.mask?.[i]),
            }),
          );
        }
      }
      if (selection.kind === kind && selection.layer === l && selection.head === h) {
        g.append(
          svgElement('rect', {
            x: x0 - 1.5,
            y: y0 - 1.5,
            width: matrix.cols * cell + 3,
            height: matrix.rows * cell + 3,
            fill: 'none',
            stroke: colours.accent,
            'stroke-width': 2,
          }),
        );
      }
      svg.append(g);
    });
  }
  return out;
}
