// Watch it learn: the training loss of every optimizer step and the held-out figure of each saved
// snapshot, over a log step axis, with a slider, a click on the plot and a Play button that pick
// the snapshot whose weights the page uses.
import { cpuCanvas, drawingContext } from '../draw/canvas.js';
import { fontOf, svgContext } from '../draw/svg.js';
import { theme } from '../draw/theme.js';
import { el } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { hideTooltip, showTooltip } from '../ui/tooltip.js';

const HEIGHT = 180;
const PAD = { left: 44, right: 58, top: 12, bottom: 24 };
const FONT = fontOf(11);
const DWELL_MS = 300; // how long Play leaves each snapshot on screen once it is drawn
const SMOOTHING = 1.2; // the loss curve averages the steps s / 1.2 … s: an even window on a log axis

/** Where a step sits on the axis: log2(1 + step) gives step 0 a place and spaces powers of two evenly. */
const logStep = (step) => Math.log2(1 + step);

/** The mean loss over [step / SMOOTHING, step] at each logged step (steps ascending). */
function smoothLoss({ steps, losses }) {
  const out = new Float32Array(losses.length);
  let from = 0;
  let sum = 0;
  for (let i = 0; i < losses.length; i++) {
    sum += losses[i];
    while (steps[from] < steps[i] / SMOOTHING) sum -= losses[from++];
    out[i] = sum / (i - from + 1);
  }
  return out;
}

const percent = (fraction) => `${Math.round(fraction * 1000) / 10} %`;

/** What snapshot `index` of `timeline` is; the last is the shipped weights, or the weights in training (the playground's). */
function describe(timeline, index) {
  const { snapshots } = timeline;
  const { step, loss, heldout, recorded } = snapshots[index];
  const last = timeline.live ? t('timeline.training') : t('timeline.shipped');
  const note =
    (index === snapshots.length - 1 ? last : step === 0 ? t('timeline.random') : '') + (recorded ? t('timeline.recordedMark') : '');
  return t('timeline.describe', { step, loss: Number.isFinite(loss) ? loss.toFixed(3) : '—', heldout: percent(heldout), note });
}

/** The plot's colours (www/draw/theme.js): the loss in the link colour, the held-out figure in the good one. */
function colours() {
  const { accent, muted, line, link, good } = theme();
  return { accent, muted, line, loss: link, heldout: good };
}

/** Step ticks: 0, 1, 10, 100, … up to `maxStep`. */
function stepTicks(maxStep) {
  const ticks = [0];
  for (let t = 1; t <= maxStep; t *= 10) ticks.push(t);
  return ticks;
}

/**
 * A line through `count` points, one vertex per pixel column (the mean of its points): a training
 * run's 60,000 steps cost what 600 do.
 */
function polyline(ctx, count, x, y) {
  ctx.beginPath();
  let column = null;
  let sum = 0;
  let points = 0;
  let started = false;
  const flush = () => {
    if (!points) return;
    if (started) ctx.lineTo(column, sum / points);
    else ctx.moveTo(column, sum / points);
    started = true;
  };
  for (let i = 0; i < count; i++) {
    const px = Math.round(x(i));
    const py = y(i);
    if (!Number.isFinite(py)) continue;
    if (px !== column) {
      flush();
      column = px;
      sum = 0;
      points = 0;
    }
    sum += py;
    points += 1;
  }
  flush();
  ctx.stroke();
}

/**
 * `createTimeline(container, { onPick(index) → Promise<shown>, onSentence(text) })`, then
 * `render(timeline, index)` for a model's timeline (www/worker/training.js) with snapshot `index` in
 * use, `show(index)` once the page uses another, `clear()` for a model without one. `onPick`
 * resolves once the page shows the snapshot (true) or gave up on it (false). A timeline of
 * recordings lists its sentences; `onSentence` is called with the one clicked.
 */
export function createTimeline(container, { onPick, onSentence }) {
  const { playButton, slider, readout, canvas, legend, recorded } = elements(container);

  let timeline = null;
  let smoothed = null;
  let current = 0;
  let xOf = null; // step → CSS x on the plot, as last drawn
  let playTicket = 0;

  function draw() {
    if (!timeline) return;
    const width = Math.max(320, container.clientWidth || 800);
    paint(drawingContext(canvas, width, HEIGHT), width);
  }

  /** The plot as drawn, with the snapshot in use marked, as a vector figure. */
  function figure() {
    if (!timeline) return null;
    const ctx = svgContext(Math.max(320, container.clientWidth || 800), HEIGHT);
    paint(ctx, ctx.canvas.width);
    return ctx.figure;
  }

  /** Paint the plot on `ctx` (a canvas's or svgContext's), `width` CSS px wide. */
  function paint(ctx, width) {
    xOf = paintTimeline(ctx, width, timeline, smoothed, current);
  }

  /** The snapshot nearest to CSS x `offsetX` on the plot. */
  function nearest(offsetX) {
    let best = 0;
    timeline.snapshots.forEach((s, i) => {
      if (Math.abs(xOf(s.step) - offsetX) < Math.abs(xOf(timeline.snapshots[best].step) - offsetX)) best = i;
    });
    return best;
  }

  function setPlaying(playing) {
    playButton.textContent = playing ? t('stepper.pause') : t('timeline.play');
    playButton.setAttribute('aria-pressed', String(playing));
  }

  function stop() {
    playTicket += 1;
    setPlaying(false);
  }

  async function play() {
    const ticket = ++playTicket;
    setPlaying(true);
    const count = timeline.snapshots.length;
    for (let i = 0; i < count; i++) {
      const shown = await onPick(i);
      if (ticket !== playTicket || !shown) break;
      if (i < count - 1) await new Promise((resolve) => setTimeout(resolve, DWELL_MS));
      if (ticket !== playTicket) break;
    }
    if (ticket === playTicket) setPlaying(false);
  }

  function pick(index) {
    stop();
    slider.value = String(index);
    onPick(index);
  }

  playButton.addEventListener('click', () => {
    if (!timeline) return;
    if (playButton.getAttribute('aria-pressed') === 'true') stop();
    else play();
  });
  for (const type of ['input', 'change']) slider.addEventListener(type, () => timeline && pick(Number(slider.value)));
  canvas.addEventListener('click', (event) => timeline && pick(nearest(event.offsetX)));
  canvas.addEventListener('mousemove', (event) => timeline && showTooltip(event, describe(timeline, nearest(event.offsetX))));
  canvas.addEventListener('mouseleave', hideTooltip);
  window.addEventListener('resize', draw);

  function show(index) {
    current = index;
    const { snapshots } = timeline;
    slider.value = String(index);
    slider.setAttribute('aria-valuetext', t('timeline.step', { step: snapshots[index].step }));
    readout.textContent = describe(timeline, index);
    draw();
  }

  function render(next, index) {
    stop();
    timeline = next;
    smoothed = smoothLoss(next.log);
    const count = next.snapshots.length;
    slider.max = String(count - 1);
    container.dataset.snapshots = String(count);
    const metric = next.heldoutPairs
      ? t('timeline.metricPairs', { metric: next.heldoutMetric || 'score', pairs: next.heldoutPairs })
      : t('timeline.metric', { metric: next.heldoutMetric || 'score' });
    canvas.setAttribute('aria-label', t('timeline.plotLabel', { metric, count }));
    legend.replaceChildren(
      legendItem(colours().loss, t('timeline.lossLegend')),
      legendItem(colours().heldout, t('timeline.heldoutLegend', { metric })),
      legendItem(colours().muted, t('timeline.logScale')),
    );
    renderSentences(recorded, next.sentences || [], onSentence);
    show(index);
  }

  function clear() {
    stop();
    timeline = null;
    delete container.dataset.snapshots;
    renderSentences(recorded, [], onSentence);
  }

  setPlaying(false);
  return { render, show, clear, figure };
}

/** The view's elements, in `container`: Play, the slider and its readout, the plot and its legend. */
function elements(container) {
  const playButton = el('button', {
    i18nTitle: 'timeline.playTitle',
    attrs: { type: 'button', id: 'timeline-play' },
  });
  const slider = el('input', { attrs: { type: 'range', id: 'timeline-slider', min: 0, step: 1 } });
  const readout = el('span', { className: 'timeline-readout', attrs: { 'aria-live': 'polite' } });
  const controls = el(
    'div',
    { className: 'row' },
    playButton,
    el('label', { className: 'timeline-slider-label' }, el('span', { i18n: 'timeline.snapshot' }), ' ', slider),
    readout,
  );
  // A CPU canvas: a GPU one waits on the GPU process, which a software GPU shares with the
  // playground's training (benches/RESULTS.md, the soak).
  const canvas = cpuCanvas({ className: 'timeline-plot', attrs: { role: 'img' } });
  const legend = el('div', { className: 'legend' });
  const recorded = el('div', { className: 'timeline-sentences', attrs: { id: 'timeline-sentences' } });
  recorded.hidden = true;
  container.replaceChildren(controls, canvas, legend, recorded);
  return { playButton, slider, readout, canvas, legend, recorded };
}

/** A recorded timeline's sentences, as buttons that translate them; hidden when there are none. */
function renderSentences(box, sentences, onSentence) {
  box.hidden = !sentences.length;
  if (!sentences.length) return box.replaceChildren();
  const buttons = sentences.map((text) => {
    const button = el('button', { text, className: 'chip', attrs: { type: 'button' } });
    button.addEventListener('click', () => onSentence?.(text));
    return button;
  });
  box.replaceChildren(
    el('p', { className: 'explain', text: t('timeline.recordedSentences', { count: sentences.length }) }),
    el('div', { className: 'chips' }, ...buttons),
  );
}

function legendItem(colour, text) {
  const item = el('span', { text });
  item.style.color = colour;
  return item;
}

/** Where things go on a plot `width` px wide: x of a step, y of a loss and of a held-out fraction. */
function plotScales({ snapshots, log }, width) {
  const left = PAD.left;
  const right = width - PAD.right;
  const top = PAD.top;
  const bottom = HEIGHT - PAD.bottom;
  const n = log.steps.length;
  const maxStep = Math.max(1, snapshots.at(-1).step, n ? log.steps[n - 1] : 0);
  const x = (step) => left + (logStep(step) / logStep(maxStep)) * (right - left);
  let highest = 0;
  for (const loss of log.losses) highest = Math.max(highest, loss);
  for (const s of snapshots) if (Number.isFinite(s.loss)) highest = Math.max(highest, s.loss);
  const lossMax = Math.max(0.5, Math.ceil(highest * 2) / 2);
  const yLoss = (loss) => bottom - (Math.min(loss, lossMax) / lossMax) * (bottom - top);
  const yHeldout = (fraction) => bottom - fraction * (bottom - top);
  return { left, right, top, bottom, maxStep, lossMax, x, yLoss, yHeldout };
}

/**
 * Paint `timeline` (its loss curve `smoothed`, snapshot `current` in use) on `ctx`, `width` CSS px
 * wide. Returns the step → x mapping drawn with.
 */
function paintTimeline(ctx, width, timeline, smoothed, current) {
  const { snapshots, log } = timeline;
  const c = colours();
  const at = plotScales(timeline, width);
  paintFrame(ctx, at, c);
  // The loss of every step (faint) and its log-window mean.
  const { x, yLoss, yHeldout, top, bottom } = at;
  const n = log.steps.length;
  if (n) {
    ctx.strokeStyle = c.loss;
    ctx.globalAlpha = 0.25;
    polyline(
      ctx,
      n,
      (i) => x(log.steps[i]),
      (i) => yLoss(log.losses[i]),
    );
    ctx.globalAlpha = 1;
    ctx.lineWidth = 1.5;
    polyline(
      ctx,
      n,
      (i) => x(log.steps[i]),
      (i) => yLoss(smoothed[i]),
    );
  }
  paintSnapshots(ctx, at, c, snapshots);
  // The snapshot in use.
  const s = snapshots[current];
  ctx.strokeStyle = c.accent;
  ctx.lineWidth = 2;
  ctx.beginPath();
  ctx.moveTo(x(s.step), top);
  ctx.lineTo(x(s.step), bottom);
  ctx.stroke();
  ctx.beginPath();
  ctx.arc(x(s.step), yHeldout(s.heldout), 6, 0, 2 * Math.PI);
  ctx.stroke();
  if (Number.isFinite(s.loss)) {
    ctx.fillStyle = c.accent;
    ctx.beginPath();
    ctx.arc(x(s.step), yLoss(s.loss), 4, 0, 2 * Math.PI);
    ctx.fill();
  }
  return x;
}

/** Frame, step ticks, and both value axes. */
function paintFrame(ctx, { left, right, top, bottom, maxStep, lossMax, x, yLoss, yHeldout }, c) {
  ctx.font = FONT;
  ctx.lineWidth = 1;
  ctx.strokeStyle = c.line;
  ctx.strokeRect(left, top, right - left, bottom - top);
  ctx.fillStyle = c.muted;
  ctx.textBaseline = 'top';
  ctx.textAlign = 'center';
  const ticks = stepTicks(maxStep);
  if (x(maxStep) - x(ticks.at(-1)) > 40) ticks.push(maxStep);
  for (const t of ticks) {
    ctx.beginPath();
    ctx.moveTo(x(t), top);
    ctx.lineTo(x(t), bottom);
    ctx.stroke();
    ctx.fillText(String(t), x(t), bottom + 6);
  }
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'right';
  for (const v of [0, lossMax / 2, lossMax]) ctx.fillText(String(v), left - 6, yLoss(v));
  ctx.textAlign = 'left';
  for (const v of [0, 0.5, 1]) ctx.fillText(percent(v), right + 10, yHeldout(v));
}

/** Every snapshot: a tick on the step axis and its held-out figure. */
function paintSnapshots(ctx, { x, yHeldout, bottom }, c, snapshots) {
  ctx.strokeStyle = c.heldout;
  ctx.lineWidth = 1;
  polyline(
    ctx,
    snapshots.length,
    (i) => x(snapshots[i].step),
    (i) => yHeldout(snapshots[i].heldout),
  );
  for (const s of snapshots) {
    ctx.strokeStyle = c.muted;
    ctx.beginPath();
    ctx.moveTo(x(s.step), bottom);
    ctx.lineTo(x(s.step), bottom - 5);
    ctx.stroke();
    ctx.fillStyle = c.heldout;
    ctx.beginPath();
    ctx.arc(x(s.step), yHeldout(s.heldout), 3, 0, 2 * Math.PI);
    ctx.fill();
  }
}
