// The lesson (导览): a guided tour of fourteen steps through the page, in the seed articles' order.
// Each step scrolls the view it is about into place and lights it while the rest of the page is
// dimmed, and says what happens there with the model's own numbers for the sentence on screen
// (www/lesson/steps.js reads them, www/lesson/numbers.js marks them). Typing another sentence,
// stepping the decoder or switching the model fills the step again.
//
// Controls: Back and Next (and ← →), Leave (and Escape); the page's Lesson button comes back to
// the step left. The step is part of the link (`lesson=N`): `onChange` tells the page.
//
// page: { state (app/store.js: trace, stages, config, positional, model, models, selection),
//   journey (www/views/journey.js), select(selection), switchModel(name), runExperiment(id) (the
//   playground's experiment, www/playground/panel.js), onChange() }.
import { el } from '../ui/dom.js';
import { onLanguageChange } from '../ui/i18n.js';
import { defaultPick } from '../views/journey.js';
import { fill } from './numbers.js';
import { STEPS } from './steps.js';
import { lessonUi, stepText } from './texts.js';

export const STEP_COUNT = STEPS.length;

/** Keys typed into these are theirs, not the lesson's (the heatmap's cell cursor uses the arrows too). */
const KEEPS_ARROWS = 'input, textarea, select, [contenteditable], canvas, .heatmap, [role=slider]';

function buildCard() {
  const counter = el('p', { className: 'lesson-counter', attrs: { 'aria-live': 'polite' } });
  const title = el('h2', { attrs: { id: 'lesson-title', tabindex: '-1' } });
  const text = el('p', { className: 'lesson-text' });
  const legend = el('p', { className: 'lesson-legend' });
  const action = el('div', { className: 'lesson-action' });
  const back = el('button', { className: 'lesson-back', attrs: { type: 'button' } });
  const next = el('button', { className: 'lesson-next', attrs: { type: 'button' } });
  const leave = el('button', { className: 'lesson-leave', text: '×', attrs: { type: 'button' } });
  const nav = el('div', { className: 'lesson-nav' }, back, next);
  const card = el(
    'aside',
    { className: 'lesson-card', attrs: { id: 'lesson', 'aria-labelledby': 'lesson-title' } },
    el('div', { className: 'lesson-head' }, counter, leave),
    title,
    text,
    action,
    legend,
    nav,
  );
  card.hidden = true;
  return { card, counter, title, text, legend, action, back, next, leave };
}

const sentenceKey = (page) => {
  const { trace, model } = page.state;
  return trace ? `${model?.name}\n${trace.srcTokens.join(' ')}\n${trace.tgtTokens.join(' ')}` : '';
};

function labelStatic({ ui, button }) {
  button.textContent = lessonUi('button');
  ui.back.textContent = lessonUi('back');
  ui.leave.setAttribute('aria-label', lessonUi('leave'));
  ui.leave.title = lessonUi('leave');
  ui.legend.textContent = lessonUi('legend');
}

function unlight() {
  for (const node of document.querySelectorAll('.lesson-target, .lesson-focus')) node.classList.remove('lesson-target', 'lesson-focus');
}

/** Light the step's panel (and the part of it the step is about), dim the rest, scroll it in. */
function highlight(definition) {
  unlight();
  const anchor = document.querySelector(definition.panel);
  const panel = anchor?.closest('section') ?? anchor;
  if (!panel) return;
  panel.classList.add('lesson-target');
  const focus = definition.focus ? panel.querySelector(definition.focus) : null;
  focus?.classList.add('lesson-focus');
  (focus ?? panel).scrollIntoView({ block: 'start', behavior: 'instant' });
}

/**
 * What step `definition` reads its numbers from: the journey at the lesson's pick (the default
 * token of the sentence shown, unless the person picked another in the journey view) and what
 * the page shows; the views are set up for the step first. { missing } when the step cannot be
 * told for this trace, null when there is nothing to tell yet.
 */
async function context(lesson, definition) {
  const { page } = lesson;
  const { state } = page;
  const trace = state.trace;
  if (!trace || !state.config) return null;
  const key = sentenceKey(page);
  if (key !== lesson.sentence || !lesson.pick) {
    lesson.sentence = key;
    lesson.pick = { ...defaultPick(trace), layer: 0, head: 0 };
  }
  const decoder = definition.needs === 'decoder' || definition.needs === 'decoderJourney';
  if (decoder && trace.decoderSelfAttention.queries === 0) return { missing: 'needsDecoder' };
  if (definition.needs === 'decoderJourney' && lesson.pick.stack !== 'decoder') lesson.pick = { ...lesson.pick, ...defaultPick(trace) };
  // A step may look at another layer and head than the lesson's (for this step only).
  const pick = definition.pick ? definition.pick({ trace, config: state.config }, lesson.pick) : lesson.pick;
  let journey = null;
  if (definition.needs === 'journey' || definition.needs === 'decoderJourney') {
    journey = await page.journey.show(pick);
    if (!journey) return null;
  }
  if (definition.select) {
    const wanted = definition.select({ pick });
    const now = state.selection;
    if (!now || now.kind !== wanted.kind || now.layer !== wanted.layer || now.head !== wanted.head) await page.select(wanted);
  }
  const { stages, config, positional, model, models } = state;
  const fetch = (args) => page.journey.fetch(args);
  return {
    trace: state.trace,
    stages,
    config,
    positional,
    model: model?.name ?? '',
    models: models.map((m) => m.name),
    journey,
    pick,
    fetch,
  };
}

/**
 * The step's action, if it has one: switching the model to show the other LayerNorm placement
 * ({ key: 'switchModel', model }), or the playground's experiment that tests the step's claim
 * ({ key: 'experiment', id }: it opens the playground and trains both runs).
 */
function renderAction({ ui, page }, definition, ctx) {
  const wanted = ctx && !ctx.missing && definition.action ? definition.action(ctx) : null;
  if (!wanted) {
    ui.action.replaceChildren();
    return;
  }
  const experiment = wanted.key === 'experiment';
  const run = el('button', {
    text: lessonUi(wanted.key, experiment ? { id: wanted.id } : { model: wanted.model }),
    attrs: { type: 'button' },
    data: experiment ? { experiment: wanted.id } : { model: wanted.model },
  });
  run.addEventListener('click', () => (experiment ? page.runExperiment(wanted.id) : page.switchModel(wanted.model)));
  ui.action.replaceChildren(run);
}

/** Fill the card with the lesson's step for what the page shows now. */
async function render(lesson) {
  const { ui } = lesson;
  if (lesson.step == null) return;
  const mine = ++lesson.ticket;
  const definition = STEPS[lesson.step - 1];
  ui.counter.textContent = lessonUi('counter', { n: lesson.step, total: STEP_COUNT });
  ui.next.textContent = lesson.step === STEP_COUNT ? lessonUi('done') : lessonUi('next');
  ui.back.disabled = lesson.step === 1;
  Object.assign(ui.card.dataset, { step: String(lesson.step), stepId: definition.id, state: 'loading' });
  const ctx = await context(lesson, definition).catch(() => null);
  if (mine !== lesson.ticket) return;
  const params = ctx && !ctx.missing ? await definition.params(ctx) : null;
  if (mine !== lesson.ticket) return;
  const { title, body } = stepText(definition.id, params?.variant);
  ui.title.textContent = title;
  if (params) ui.text.replaceChildren(...fill(body, params));
  else ui.text.textContent = lessonUi(ctx?.missing ?? 'waiting');
  renderAction(lesson, definition, ctx);
  highlight(definition);
  ui.card.dataset.state = params ? 'ready' : 'waiting';
}

/** Show step `n` (clamped to 1…STEP_COUNT). */
function go(lesson, n) {
  const { ui, button } = lesson;
  const opening = lesson.step == null;
  lesson.step = Math.min(STEP_COUNT, Math.max(1, Math.round(Number(n)) || 1));
  lesson.left = lesson.step;
  ui.card.hidden = false;
  document.body.classList.add('lesson-on');
  button.setAttribute('aria-expanded', 'true');
  const drawn = render(lesson);
  if (opening) ui.title.focus({ preventScroll: true });
  lesson.page.onChange();
  return drawn;
}

function close(lesson) {
  if (lesson.step == null) return;
  lesson.step = null;
  lesson.ticket += 1;
  lesson.ui.card.hidden = true;
  document.body.classList.remove('lesson-on');
  unlight();
  lesson.button.setAttribute('aria-expanded', 'false');
  lesson.button.focus({ preventScroll: true });
  lesson.page.onChange();
}

/** The buttons, and ← → and Escape anywhere but where the keys are a control's own. */
function wireControls(lesson) {
  const { ui, button } = lesson;
  button.setAttribute('aria-controls', 'lesson');
  button.setAttribute('aria-expanded', 'false');
  button.addEventListener('click', () => (lesson.step == null ? go(lesson, lesson.left) : ui.title.focus()));
  ui.back.addEventListener('click', () => go(lesson, lesson.step - 1));
  ui.next.addEventListener('click', () => (lesson.step === STEP_COUNT ? close(lesson) : go(lesson, lesson.step + 1)));
  ui.leave.addEventListener('click', () => close(lesson));
  document.addEventListener('keydown', (event) => {
    const { step } = lesson;
    if (step == null || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'Escape') close(lesson);
    else if (event.target.closest?.(KEEPS_ARROWS)) return;
    else if (event.key === 'ArrowRight' && step < STEP_COUNT) go(lesson, step + 1);
    else if (event.key === 'ArrowLeft' && step > 1) go(lesson, step - 1);
    else return;
    event.preventDefault();
  });
}

export function createLesson({ button, page }) {
  const ui = buildCard();
  document.body.append(ui.card);
  // step: 1…STEP_COUNT while open; left: the step to come back to; pick: { stack, layer, position,
  // head }, the token the lesson follows; sentence: what the pick was chosen for.
  const lesson = { ui, button, page, step: null, left: 1, pick: null, sentence: null, ticket: 0 };
  wireControls(lesson);
  // A new answer on screen (another sentence, a step, another model): the step speaks of it.
  new MutationObserver(() => {
    if (lesson.step != null && document.body.dataset.ready === 'true' && sentenceKey(page) !== lesson.sentence) render(lesson);
  }).observe(document.body, { attributes: true, attributeFilter: ['data-ready'] });
  page.journey.onPick?.((wanted) => {
    if (lesson.step == null) return;
    lesson.pick = { ...lesson.pick, ...wanted };
    render(lesson);
  });
  onLanguageChange(() => {
    labelStatic(lesson);
    render(lesson);
  });
  labelStatic(lesson);

  return {
    /** Open at step `n` (a link's), or close when `n` is null. */
    open: (n) => (n == null ? close(lesson) : go(lesson, n)),
    close: () => close(lesson),
    /** The step shown, or null while the lesson is closed. */
    step: () => lesson.step,
    /** Resolves once the step shown is filled (for the tests and the link). */
    render: () => render(lesson),
  };
}
