// Redraw scheduling: every view shows the answer in `state`. The focused heatmap and buttons are
// drawn at once, the tokens in the next task; the other views (app/views.js, those with a `draw`) each in their own
// task, and a view whose drawing grows with the model or the sentence a few slices a task
// (www/ui/slices.js), so no single main-thread task grows with them. The views in sight are drawn
// before those scrolled out of it, so what the person sees is redrawn first. A newer redraw
// abandons an unfinished one. `body[data-ready]` is "true" only once everything shows the current
// answer, and the bus hears `drawn` then.

import { announce } from '../ui/bus.js';
import { $, el, option } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { layOut, nextTask, runSome } from '../ui/slices.js';
import { isSummaryHead } from '../views/attention.js';
import { showMessage } from './messages.js';
import { parts, specialIds, state } from './store.js';
import { summariesIn } from './summaries.js';
import { entryOf, VIEWS } from './views.js';

/**
 * Redraw every view; resolves to the main-thread time spent drawing, or null when a newer redraw
 * took over. `onSeen(ms)` is called once every view in sight shows the answer, with the
 * main-thread time spent until then (the views out of sight are drawn after it).
 */
export async function renderAll(onSeen = () => {}, { answer = false } = {}) {
  try {
    return await drawAll(onSeen, answer);
  } catch (error) {
    // A drawing bug must not leave the page half-drawn and silent.
    showMessage(t('message.drawFailed', { error: error.message }));
    return null;
  }
}

/** Wait for the shown answer's summaries: whether redraw `ticket` of `trace` is still the latest then. */
async function summariesCame(ticket, trace) {
  await summariesIn();
  return ticket === state.renderTicket && state.trace === trace;
}

/**
 * `answer`: a worker's answer just came. It is drawn in the next task: the message that brought
 * it (its arrays' bytes, and the garbage collection they start) is a task of its own.
 */
async function drawAll(onSeen, answer) {
  const ticket = ++state.renderTicket;
  document.body.dataset.ready = 'false';
  if (answer) {
    await nextTask();
    if (ticket !== state.renderTicket) return null;
  }
  const { trace, selection } = state;
  let table = null; // the focused heatmap's numbers as a table, filled in slices
  // A summary over heads in focus waits for the summaries (app/summaries.js); a head does not.
  if (trace && isSummaryHead(selection.head) && !(await summariesCame(ticket, trace))) return null;
  let busy = timed('focus, buttons', () => {
    table = drawFirst(trace, selection);
  });
  // The token lines in a task of their own: a 128-token sentence's are ~260 chips to lay out, and
  // with the focused heatmap they made one task of 42–75 ms (the large model's decode).
  await nextTask();
  if (ticket !== state.renderTicket) return null;
  busy += timed('tokens', () => parts.views.tokens.render(trace));
  // The focused heatmap's labels (the first slice of its table's), in the next task and before the
  // summaries are waited for: a live answer's come in a later message, and the new matrix must not
  // show the last answer's labels meanwhile. The table's other slices run with the views in sight.
  if (table) {
    await nextTask();
    if (ticket !== state.renderTicket) return null;
    busy += timed('focus labels', () => runSome(table));
  }
  const views = trace ? laterViews(() => table) : [];
  const seen = views.filter(([, , id]) => inSight(id));
  if (trace && !(await summariesCame(ticket, trace))) return null;
  const seenSpent = await drawViews(ticket, seen);
  if (seenSpent == null) return null;
  busy += seenSpent;
  onSeen(busy);
  const restSpent = await drawViews(
    ticket,
    views.filter((view) => !seen.includes(view)),
  );
  if (restSpent == null) return null;
  busy += restSpent;
  markSnapshot();
  document.body.dataset.ready = trace ? 'true' : 'false';
  document.body.dataset.output = trace ? trace.output : '';
  if (trace) announce('drawn');
  return busy;
}

/** What is drawn at once: selectors, the focused heatmap (returns its table's slices), buttons. */
function drawFirst(trace, selection) {
  const { views } = parts;
  let table = null;
  syncSelectors();
  // A summary over heads in focus was waited for (drawAll); a head needs none.
  if (trace) table = views.focus.render(trace, selection, { special: specialIds(), hideSinks: state.hideSinks, analysis: state.analysis });
  renderTruncation(trace);
  renderStepButtons();
  return table;
}

/**
 * Every other view as [label, draw, id of the element it draws in], in the registry's order (those
 * in sight are drawn first), a task each. A saved trace has no model to ask: live views wait.
 */
function laterViews(table) {
  const { views } = parts;
  const list = [['focus table', table, 'focus-heatmap']];
  for (const entry of VIEWS) {
    if ((!entry.draw && !entry.tasks) || (entry.live && state.saved)) continue;
    const view = views[entry.name];
    const tasks = entry.tasks ? entry.tasks(view, state) : [[entry.label ?? entry.name, () => entry.draw(view, state, views)]];
    for (const [label, draw] of tasks) list.push([label, draw, entry.panel]);
  }
  return list;
}

/** Draw view `name` again from the state now, as its registry entry's `draw` does with every answer. */
export function redraw(name) {
  const entry = entryOf(name);
  entry.draw(parts.views[name], state, parts.views);
}

/** Draw view `name` from the part of the state that is not an answer (its entry's `refresh`). */
export function refresh(name) {
  entryOf(name).refresh(parts.views[name], state);
}

/** Every view that draws more than answers, from the state (the language changed). */
export function refreshAll() {
  for (const entry of VIEWS) if (entry.refresh) entry.refresh(parts.views[entry.name], state);
}

/** The beam node the page shows, marked in the beam tree (`state.beamNode`). */
export function markBeamNode() {
  parts.views.beamTree.highlight(state.beamNode);
}

/** Draw `views` ([name, draw, id]) a task each; the main-thread time spent, or null when a newer redraw took over. */
async function drawViews(ticket, views) {
  let busy = 0;
  for (const [name, draw] of views) {
    await nextTask();
    if (ticket !== state.renderTicket) return null;
    const spent = await drawView(ticket, name, draw);
    if (spent == null) return null;
    busy += spent;
  }
  return busy;
}

/** Whether the panel holding the element `id` shows in the window now (a hidden one does not). */
function inSight(id) {
  const element = document.getElementById(id);
  const box = (element?.closest('section') ?? element)?.getBoundingClientRect();
  return !!box && box.height > 0 && box.bottom > 0 && box.top < window.innerHeight;
}

// Each view's draw time shows in the browser's performance timeline (and the benchmarks). The
// timeline keeps user-timing entries until they are cleared, so a long session clears them.
// The page is laid out at the end of each drawing task, and that time counts as the view's: left
// to the next frame, the style and layout of every view drawn since the last one (or of a key
// event that forces them) would add up to one long task.
// Returns the milliseconds spent.
function timed(name, draw) {
  const t0 = performance.now();
  draw();
  layOut();
  const t1 = performance.now();
  performance.measure(`render: ${name}`, { start: t0, end: t1 });
  if (++state.measured % 1000 === 0) performance.clearMeasures();
  return t1 - t0;
}

/**
 * Draw one view: `draw()`, and when it returns slices (www/ui/slices.js) a few of them a task until
 * they end. Resolves to the main-thread time spent, or null when a newer redraw took over.
 */
async function drawView(ticket, name, draw) {
  let slices = null;
  let done = false;
  let busy = timed(name, () => {
    slices = draw();
    done = !slices?.next || runSome(slices);
  });
  while (!done) {
    await nextTask();
    if (ticket !== state.renderTicket) return null;
    busy += timed(name, () => {
      done = runSome(slices);
    });
  }
  return busy;
}

/** Resolves once every view shows the latest answer (at once when there is none to show). */
export function whenDrawn() {
  return new Promise((resolve) => {
    const done = () => !state.trace || document.body.dataset.ready === 'true';
    if (done()) {
      resolve();
      return;
    }
    const observer = new MutationObserver(() => {
      if (!done()) return;
      observer.disconnect();
      resolve();
    });
    observer.observe(document.body, { attributes: true, attributeFilter: ['data-ready'] });
  });
}

/** `body[data-snapshot]`: the step of the snapshot whose weights made what the page shows. */
export function markSnapshot() {
  if (state.timeline) document.body.dataset.snapshot = String(state.timeline.snapshots[state.snapshot].step);
  else delete document.body.dataset.snapshot;
}

/** Give `select` the options 0…count-1 and `extra` (unless it has them already), and pick `value`. */
function fillSelect(select, count, value, extra = []) {
  const values = [...Array.from({ length: count }, (_, i) => String(i)), ...extra];
  if ([...select.options].map((o) => o.value).join() !== values.join()) select.replaceChildren(...values.map((text) => option(text)));
  select.value = String(value);
}

function syncSelectors() {
  const { config, selection } = state;
  if (!config) return;
  $('kind-select').value = selection.kind;
  fillSelect($('layer-select'), selection.kind === 'encoderSelf' ? config.nEncoderLayers : config.nDecoderLayers, selection.layer);
  fillSelect($('head-select'), config.nHeads, selection.head, ['mean', 'max']);
}

function renderTruncation(trace) {
  const target = $('truncation');
  const cut = trace?.truncation;
  if (!cut) {
    target.hidden = true;
    target.replaceChildren();
    return;
  }
  const text = $('source-input').value;
  const chars = [...text];
  const kept = chars.slice(Math.max(0, cut.cutAtChar - 40), cut.cutAtChar).join('');
  const dropped = chars.slice(cut.cutAtChar, cut.cutAtChar + 40).join('');
  target.replaceChildren(
    el('span', {
      text: t('input.truncated', { total: cut.totalTokens, kept: cut.keptTokens, at: cut.cutAtChar, text: kept }),
    }),
    el('span', { className: 'mark', text: ' ✂ ' }),
    el('span', { className: 'cut', text: `${dropped}…` }),
  );
  target.hidden = false;
}

export function renderStepButtons() {
  // A saved trace cannot step, nor can a recording (it has no weights).
  const trace = state.saved || state.recorded != null ? null : state.trace;
  const steps = trace ? trace.steps.length : 0;
  const finished = trace ? trace.finished : true;
  const focused = document.activeElement;
  $('step-back').disabled = !trace || steps === 0;
  $('step-reset').disabled = !trace || steps === 0;
  $('step-forward').disabled = !trace || finished;
  $('step-end').disabled = !trace || finished;
  $('step-play').disabled = !trace || finished;
  // A keyboard user whose button just went disabled stays among the stepper's buttons.
  if (focused?.disabled && focused.closest('.stepper-buttons')) {
    focused.closest('.stepper-buttons').querySelector('button:not(:disabled)')?.focus();
  }
  $('step-play').textContent = state.playing ? t('stepper.pause') : t('stepper.play');
  const shown = state.trace;
  const count = shown ? shown.steps.length : 0;
  const status = count === 1 ? t('stepper.statusOne') : t('stepper.statusMany', { count });
  $('step-status').textContent = shown ? `${status}${shown.finished ? t('stepper.finished') : ''}` : '';
}
