// The playground's chart: for one run or two (an experiment's arms), the training loss
// (teacher-forced, each step's batch; drawn as the mean over the steps under each pixel), the
// held-out loss and, below, the held-out exact match under greedy decoding. The data grow as the
// notices come; the canvas is redrawn at most every MIN_REDRAW_MS, at an animation frame, at device-pixel
// resolution. One paint routine draws the canvas and the SVG export (www/draw/svg.js).
import { cpuCanvas, drawingContext } from '../draw/canvas.js';
import { fontOf, svgContext } from '../draw/svg.js';
import { seriesColour, theme } from '../draw/theme.js';
import { el } from '../ui/dom.js';
import { save, savePng, saveSvg } from '../ui/export.js';
import { t } from '../ui/i18n.js';

/** The chart is drawn at most this often while a run trains. */
const MIN_REDRAW_MS = 250;
/** The chart's height in CSS px, and on a narrow screen. */
const HEIGHT = 320;
const NARROW_HEIGHT = 280;
const NARROW = 520;
/** Losses below this are drawn at it (a log scale has no 0). */
const FLOOR = 1e-4;
const MARGIN = { left: 46, right: 12, top: 24, bottom: 30 };

/** A loss as the axis labels it: 1, 0.1, 0.01, 1e-3, 10, 100, 1e3. */
const decade = (k) => (k >= -2 && k <= 2 ? String(Number((10 ** k).toFixed(2))) : `1e${k}`);

/** The y range of the loss plot, in powers of ten: [lo, hi]. */
function lossRange(runs) {
  let min = Number.POSITIVE_INFINITY;
  let max = 0;
  const see = (v) => {
    if (!Number.isFinite(v)) return;
    min = Math.min(min, Math.max(v, FLOOR));
    max = Math.max(max, Math.max(v, FLOOR));
  };
  for (const run of runs) {
    for (const v of run.losses) see(v);
    for (const e of run.evaluations) see(e.heldoutLoss);
  }
  if (!(max > 0)) return [-2, 1];
  const lo = Math.floor(Math.log10(min));
  return [lo, Math.max(lo + 1, Math.ceil(Math.log10(max)))];
}

/** Axes, grid and tick labels of a plot in `box` ({ x, y, w, h }), ticks at `ticks` ([{ at (0..1 from bottom), text }]). */
function axes(ctx, box, ticks, title) {
  const colours = theme();
  ctx.font = fontOf(11);
  ctx.fillStyle = colours.muted;
  ctx.textAlign = 'left';
  ctx.textBaseline = 'bottom';
  ctx.fillText(title, box.x, box.y - 4);
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  for (const { at, text } of ticks) {
    const y = box.y + box.h * (1 - at);
    ctx.strokeStyle = colours.line;
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(box.x, y);
    ctx.lineTo(box.x + box.w, y);
    ctx.stroke();
    ctx.fillText(text, box.x - 4, y);
  }
}

/** The training loss of `run`: the mean over each pixel column's steps, as a line. */
function trainingLine(ctx, run, x, y) {
  ctx.beginPath();
  let column = null;
  let sum = 0;
  let count = 0;
  let started = false;
  const flush = () => {
    if (!count) return;
    const py = y(sum / count);
    if (started) ctx.lineTo(column, py);
    else ctx.moveTo(column, py);
    started = true;
  };
  run.losses.forEach((loss, i) => {
    if (!Number.isFinite(loss)) return;
    const px = Math.round(x(i + 1));
    if (px !== column) {
      flush();
      column = px;
      sum = 0;
      count = 0;
    }
    sum += loss;
    count += 1;
  });
  flush();
  ctx.stroke();
}

/** Points joined by a line, with a dot at each. */
function dotted(ctx, points, radius) {
  ctx.beginPath();
  for (const [i, [px, py]] of points.entries()) {
    if (i) ctx.lineTo(px, py);
    else ctx.moveTo(px, py);
  }
  ctx.stroke();
  for (const [px, py] of points) {
    ctx.beginPath();
    ctx.arc(px, py, radius, 0, 2 * Math.PI);
    ctx.fill();
  }
}

/** A run's label in the language in use (a label may be a function, said again in another language). */
const labelOf = (run) => (typeof run.label === 'function' ? run.label() : run.label) || t('playground.chart.thisRun');

/** The legend: a colour and a label per run, and how each curve is drawn. */
function legend(ctx, runs, width) {
  ctx.font = fontOf(11);
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  let x = MARGIN.left;
  runs.forEach((run, k) => {
    ctx.fillStyle = seriesColour(k);
    ctx.fillRect(x, 6, 10, 10);
    ctx.fillStyle = theme().text;
    const label = labelOf(run);
    ctx.fillText(label, x + 14, 11);
    x += 24 + ctx.measureText(label).width;
  });
  ctx.fillStyle = theme().muted;
  ctx.textAlign = 'right';
  ctx.fillText(t('playground.chart.key'), width - MARGIN.right, 11);
}

/** Paint the chart of `runs` on `ctx` (a canvas's or svgContext's), `width × height` CSS px. */
export function paint(ctx, runs, width, height) {
  const colours = theme();
  ctx.fillStyle = colours.background;
  ctx.fillRect(0, 0, width, height);
  const steps = Math.max(1, ...runs.map((run) => run.config?.steps ?? run.losses.length));
  const w = width - MARGIN.left - MARGIN.right;
  const inner = height - MARGIN.top - MARGIN.bottom - 22;
  const lossBox = { x: MARGIN.left, y: MARGIN.top + 16, w, h: Math.round(inner * 0.6) - 16 };
  const exactBox = { x: MARGIN.left, y: lossBox.y + lossBox.h + 38, w, h: inner - lossBox.h - 38 };
  const x = (step) => MARGIN.left + (w * step) / steps;
  const [lo, hi] = lossRange(runs);
  const yLoss = (v) => lossBox.y + lossBox.h * (1 - (Math.log10(Math.max(v, FLOOR)) - lo) / (hi - lo));
  const yExact = (v) => exactBox.y + exactBox.h * (1 - v);
  const every = hi - lo > 6 ? 2 : 1;
  const lossTicks = [];
  for (let k = lo; k <= hi; k += every) lossTicks.push({ at: (k - lo) / (hi - lo), text: decade(k) });
  axes(ctx, lossBox, lossTicks, t('playground.chart.loss'));
  axes(
    ctx,
    exactBox,
    [0, 0.5, 1].map((at) => ({ at, text: `${at * 100} %` })),
    t('playground.chart.exact'),
  );
  // The step axis, under the exact-match plot.
  ctx.fillStyle = colours.muted;
  ctx.textAlign = 'center';
  ctx.textBaseline = 'top';
  for (const [step, align] of [
    [0, 'left'],
    [Math.round(steps / 2), 'center'],
    [steps, 'right'],
  ]) {
    ctx.textAlign = align;
    ctx.fillText(String(step), x(step), exactBox.y + exactBox.h + 4);
  }
  ctx.textAlign = 'center';
  ctx.fillText(t('playground.chart.step'), MARGIN.left + w / 2, exactBox.y + exactBox.h + 16);
  runs.forEach((run, k) => {
    const colour = seriesColour(k);
    ctx.strokeStyle = colour;
    ctx.fillStyle = colour;
    ctx.lineWidth = 1;
    ctx.globalAlpha = 0.55;
    trainingLine(ctx, run, x, yLoss);
    ctx.globalAlpha = 1;
    ctx.lineWidth = 2;
    const held = run.evaluations.filter((e) => Number.isFinite(e.heldoutLoss));
    dotted(
      ctx,
      held.map((e) => [x(e.step), yLoss(e.heldoutLoss)]),
      2.5,
    );
    dotted(
      ctx,
      run.evaluations.map((e) => [x(e.step), yExact(e.exactMatch)]),
      2.5,
    );
    if (run.diverged) {
      const at = x(run.diverged.step);
      ctx.strokeStyle = colours.error;
      ctx.beginPath();
      ctx.moveTo(at, lossBox.y);
      ctx.lineTo(at, exactBox.y + exactBox.h);
      ctx.stroke();
      ctx.fillStyle = colours.error;
      ctx.textAlign = 'right';
      ctx.textBaseline = 'top';
      ctx.fillText(t('playground.chart.diverged', { step: run.diverged.step }), at - 3, lossBox.y + 2);
    }
  });
  legend(ctx, runs, width);
}

/**
 * The chart, built into `container`: { beginRun(label, config) (the run the next data belong
 * to), clear(), addReports(reports), addEvaluation(evaluation), markDiverged(params), runs,
 * redraw(), figure(), json() }. `names()` gives the exported files' base name.
 */
export function createChart(container, { names }) {
  // A CPU canvas: a GPU one waits on the GPU process to draw, which under a software GPU shares
  // the cores with training (benches/RESULTS.md, the soak).
  const canvas = cpuCanvas({ className: 'playground-chart', i18nLabel: 'playground.chart.label', attrs: { role: 'img' } });
  const buttons = ['png', 'svg', 'json'].map((format) =>
    el('button', { className: 'export-button', text: format.toUpperCase(), attrs: { type: 'button' }, data: { format } }),
  );
  container.append(el('div', { className: 'export', attrs: { role: 'group' } }, ...buttons), canvas);
  const runs = [];
  const scheduled = { frame: 0, timer: 0, last: 0 }; // the frame or timer asked for, and when it last drew

  const size = () => {
    const width = Math.max(280, Math.floor(container.clientWidth || 600));
    return { width, height: width < NARROW ? NARROW_HEIGHT : HEIGHT };
  };
  const draw = () => {
    scheduled.frame = 0;
    scheduled.last = performance.now();
    if (!canvas.isConnected || !container.clientWidth) return;
    const { width, height } = size();
    paint(drawingContext(canvas, width, height), runs, width, height);
  };
  /** Draw at the next animation frame, at most every MIN_REDRAW_MS (once, however many notices came). */
  const redraw = () => {
    if (scheduled.frame || scheduled.timer) return;
    const wait = scheduled.last + MIN_REDRAW_MS - performance.now();
    if (wait <= 0) {
      scheduled.frame = requestAnimationFrame(draw);
      return;
    }
    scheduled.timer = setTimeout(() => {
      scheduled.timer = 0;
      scheduled.frame ||= requestAnimationFrame(draw);
    }, wait);
  };
  new ResizeObserver(redraw).observe(container);

  const chart = {
    runs,
    redraw,
    beginRun(label, config) {
      runs.push({ label, config, losses: [], evaluations: [], diverged: null });
      redraw();
    },
    clear() {
      runs.length = 0;
      redraw();
    },
    addReports(reports) {
      const run = runs.at(-1);
      if (!run) return;
      for (const { step, loss } of reports) run.losses[step - 1] = loss ?? Number.NaN;
      redraw();
    },
    addEvaluation(evaluation) {
      const run = runs.at(-1);
      if (!run) return;
      const { samples, ...figures } = evaluation;
      const kept = run.evaluations.filter((e) => e.step !== figures.step);
      kept.push(figures);
      kept.sort((a, b) => a.step - b.step);
      run.evaluations = kept;
      redraw();
    },
    markDiverged(params) {
      const run = runs.at(-1);
      if (run) run.diverged = { step: Number(params.step), kept: Number(params.kept), loss: params.loss };
      redraw();
    },
    figure() {
      const { width, height } = size();
      const ctx = svgContext(width, height);
      paint(ctx, runs, width, height);
      return ctx.figure;
    },
    json() {
      return JSON.stringify({
        runs: runs.map((run) => ({
          label: labelOf(run),
          config: run.config,
          trainingLoss: run.losses.map((loss, i) => ({ step: i + 1, loss: Number.isFinite(loss) ? loss : null })),
          evaluations: run.evaluations,
          diverged: run.diverged,
        })),
      });
    },
  };
  for (const button of buttons) {
    button.addEventListener('click', () => {
      const name = `${names()}-curves.${button.dataset.format}`;
      if (button.dataset.format === 'svg') saveSvg(chart.figure(), name);
      else if (button.dataset.format === 'png') savePng(chart.figure(), name);
      else save(new Blob([chart.json()], { type: 'application/json' }), name);
    });
  }
  return chart;
}
