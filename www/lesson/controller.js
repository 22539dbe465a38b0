// The lesson (导览): a guided tour through the page, in the seed articles' order. Each step lights
// the view it is about, says what happens there with the model's own numbers for the sentence on
// screen (www/lesson/steps.js reads them, www/lesson/numbers.js marks them), asks the learner to
// do something there (www/lesson/tasks.js: the step completes when the page's bus announces it)
// and, at most steps, checks what they understood (www/lesson/checks.js: graded against the live
// model; the card hides the value a check asks for until it is answered). Progress is kept per
// model (www/lesson/progress.js) and the lesson resumes there.
//
// Controls: Back and Next (and ← →; Next asks once before skipping an unfinished step), Leave
// (and Escape), Start over, Download events. The step is part of the link (`lesson=N`).
//
// page: { state (app/store.js), journey (www/views/journey.js), select(selection),
//   switchModel(name), runExperiment(id), decoding() ({ mode, … }: the decoding menu), onChange() }.
import { listen } from '../ui/bus.js';
import { el } from '../ui/dom.js';
import { onLanguageChange } from '../ui/i18n.js';
import { defaultPick, sourcePick } from '../views/journey.js';
import { buildCard, highlight, keepInSight, labelStatic, unlight } from './card.js';
import { CHECKS } from './checks.js';
import { gradeFor, prepareCheck, resolvePrediction } from './grading.js';
import { fill, tok } from './numbers.js';
import { createProgress, lessonKey } from './progress.js';
import { renderCheck } from './quiz.js';
import { quizUi, taskText } from './quiz-texts.js';
import { STEPS } from './steps.js';
import { renderSummary } from './summary.js';
import { TASKS, taskApplies } from './tasks.js';
import { lessonUi, stepText } from './texts.js';

export const STEP_COUNT = STEPS.length;
const IDS = STEPS.map((s) => s.id);
const CHECK_IDS = IDS.filter((id) => CHECKS[id]);

/** Keys typed into these are theirs, not the lesson's (the heatmap's cell cursor uses the arrows too). */
const KEEPS_ARROWS = 'input, textarea, select, [contenteditable], canvas, .heatmap, [role=slider], .lesson-check';

const sentenceKey = (page) => {
  const { trace, model } = page.state;
  return trace ? `${model?.name}\n${trace.srcTokens.join(' ')}\n${trace.tgtTokens.join(' ')}` : '';
};

/**
 * What step `definition` reads its numbers from: the journey at the lesson's pick and what the
 * page shows; the views are set up for the step first. { missing } when the step cannot be told
 * for this trace, null when there is nothing to tell yet.
 */
async function context(lesson, definition, task) {
  const { page } = lesson;
  const { state } = page;
  const trace = state.trace;
  if (!trace || !state.config) return null;
  const key = sentenceKey(page);
  if (key !== lesson.sentence || !lesson.pick) {
    lesson.sentence = key;
    // Steps 1–7 follow encoder self-attention, where nothing is masked: the last source word.
    lesson.pick = { ...sourcePick(trace), layer: 0, head: 0 };
  }
  const decoder = definition.needs === 'decoder' || definition.needs === 'decoderJourney';
  if (decoder && trace.decoderSelfAttention.queries === 0) return { missing: 'needsDecoder' };
  if (definition.needs === 'decoderJourney' && lesson.pick.stack !== 'decoder') lesson.pick = { ...lesson.pick, ...defaultPick(trace) };
  if (definition.needs === 'journey' && lesson.pick.stack !== 'encoder' && lesson.step <= 7)
    lesson.pick = { ...lesson.pick, ...sourcePick(trace) };
  const pick = definition.pick ? definition.pick({ trace, config: state.config }, lesson.pick) : lesson.pick;
  let journey = null;
  if (definition.needs === 'journey' || definition.needs === 'decoderJourney') {
    journey = await page.journey.show(pick);
    if (!journey) return null;
  }
  const select =
    definition.select ?? (task?.select ? (c) => ({ kind: c.pick.stack === 'encoder' ? 'encoderSelf' : 'decoderSelf', ...c.pick }) : null);
  if (select) {
    const wanted = select({ pick });
    const now = state.selection;
    if (!now || now.kind !== wanted.kind || now.layer !== wanted.layer || now.head !== wanted.head) {
      await page.select({ kind: wanted.kind, layer: wanted.layer, head: wanted.head });
    }
  }
  const { stages, config, positional, model, models, batch } = state;
  return {
    trace: state.trace,
    stages,
    config,
    positional,
    batch,
    model: model?.name ?? '',
    models: models.map((m) => m.name),
    decoding: page.decoding?.() ?? { mode: 'greedy' },
    journey,
    pick,
    fetch: (args) => page.journey.fetch(args),
  };
}

/** The step's button, if it has one: another model ({ key: 'switchModel' }) or a playground experiment. */
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

/** The task line: what to do, or that it is done. */
function renderTask(lesson, id, ctx) {
  const { ui } = lesson;
  const task = TASKS[id];
  const applies = task && ctx && !ctx.missing && taskApplies(id, ctx);
  const done = lesson.progress.isDone(id);
  ui.task.dataset.state = !applies ? 'none' : done ? 'done' : 'open';
  if (!applies) {
    ui.task.replaceChildren(el('span', { className: 'muted', text: quizUi('taskNone') }));
    return;
  }
  const params = { token: tok(ctx.journey?.token ?? '') };
  ui.task.replaceChildren(
    el('strong', { text: `${quizUi('taskLabel')} ` }),
    ...fill(taskText(id), params),
    ...(done ? [el('span', { className: 'lesson-task-done', text: ` ✓ ${quizUi('taskDone')}` })] : []),
  );
}

/** Fill the card with the lesson's step for what the page shows now. */
async function render(lesson) {
  const { ui } = lesson;
  if (lesson.step == null) return;
  const mine = ++lesson.ticket;
  const definition = STEPS[lesson.step - 1];
  const id = definition.id;
  const task = TASKS[id];
  ui.counter.textContent = lessonUi('counter', { n: lesson.step, total: STEP_COUNT });
  ui.next.textContent = lesson.step === STEP_COUNT ? lessonUi('done') : lessonUi('next');
  ui.back.disabled = lesson.step === 1;
  ui.summary.hidden = true;
  Object.assign(ui.card.dataset, { step: String(lesson.step), stepId: id, state: 'loading' });
  const ctx = await context(lesson, definition, task).catch(() => null);
  if (mine !== lesson.ticket) return;
  const raw = ctx && !ctx.missing ? await definition.params(ctx) : null;
  if (mine !== lesson.ticket) return;
  const { params, check } = await prepareCheck(lesson, id, ctx, raw);
  if (mine !== lesson.ticket) return;
  lesson.ctx = ctx;
  const { title, body } = stepText(id, params?.variant);
  ui.title.textContent = title;
  if (params) ui.text.replaceChildren(...fill(body, params));
  else ui.text.textContent = lessonUi(ctx?.missing ?? 'waiting');
  renderTask(lesson, id, ctx);
  renderAction(lesson, definition, ctx);
  renderCheck(ui.check, check ? { ...check, params: check.answer?.params ?? {}, grade: (v) => gradeFor(lesson, id, v) } : { answer: null });
  const control = highlight(definition, task?.control);
  keepInSight(control, ui.card);
  ui.card.dataset.state = params ? 'ready' : 'waiting';
  ui.card.dataset.task = ui.task.dataset.state;
  ui.card.dataset.control = task?.control ?? '';
  ui.card.dataset.rows = String(lesson.page.state.trace?.decoderSelfAttention.queries ?? '');
  ui.card.dataset.pick = ctx?.pick ? `${ctx.pick.stack}/${ctx.pick.layer}/${ctx.pick.position}/${ctx.pick.head}` : '';
}

/** What the page shows as a step opens, for tasks that ask for a change. */
function snapshot(lesson) {
  const { state } = lesson.page;
  return { selection: state.selection ? { ...state.selection } : null, pick: lesson.pick ? { ...lesson.pick } : null };
}

/** Show step `n` (clamped to 1…STEP_COUNT). */
function go(lesson, n, note = '') {
  const { ui, button } = lesson;
  const opening = lesson.step == null;
  lesson.summaryShown = false;
  lesson.step = Math.min(STEP_COUNT, Math.max(1, Math.round(Number(n)) || 1));
  lesson.left = lesson.step;
  lesson.skipAsked = false;
  lesson.started = snapshot(lesson);
  ui.note.textContent = note || (lesson.progress.available ? '' : quizUi('noStorage'));
  lesson.progress.startStep(IDS[lesson.step - 1], lesson.step);
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
  lesson.progress.pause();
  lesson.step = null;
  lesson.ticket += 1;
  lesson.ui.card.hidden = true;
  document.body.classList.remove('lesson-on');
  unlight();
  lesson.button.setAttribute('aria-expanded', 'false');
  lesson.button.focus({ preventScroll: true });
  lesson.page.onChange();
}

/** Next: the next step, once the task is done or the learner has been asked once; the summary after the last. */
function next(lesson) {
  const id = IDS[lesson.step - 1];
  const open = lesson.ui.card.dataset.task === 'open';
  if (open && !lesson.skipAsked) {
    lesson.skipAsked = true;
    lesson.ui.note.textContent = quizUi('skipAsk');
    return;
  }
  if (open) lesson.progress.completeStep(id, 'skipped');
  if (lesson.step === STEP_COUNT) showSummary(lesson);
  else go(lesson, lesson.step + 1);
}

function showSummary(lesson) {
  const { ui } = lesson;
  lesson.progress.pause();
  ui.title.textContent = quizUi('summaryTitle');
  ui.text.replaceChildren();
  ui.task.replaceChildren();
  ui.check.replaceChildren();
  ui.action.replaceChildren();
  ui.summary.hidden = false;
  ui.note.textContent = '';
  renderSummary(ui.summary, lesson.progress.summary(IDS, CHECK_IDS), IDS);
  ui.card.dataset.state = 'summary';
  ui.next.textContent = quizUi('close');
  lesson.summaryShown = true;
}

/** The page did something: the step's task completes if it was this (and a prediction is graded). */
function heard(lesson, name, detail) {
  if (lesson.step == null || lesson.summaryShown) return;
  const id = IDS[lesson.step - 1];
  const task = TASKS[id];
  if (!task || task.event !== name || !lesson.ctx || lesson.ctx.missing) return;
  if (!task.done(detail ?? {}, lesson.ctx, lesson.started ?? {})) return;
  const graded = resolvePrediction(lesson, id, lesson.page.state.trace);
  if (lesson.progress.isDone(id)) return;
  lesson.progress.completeStep(id, 'task');
  lesson.ui.note.textContent = '';
  if (!graded) renderTask(lesson, id, lesson.ctx);
  lesson.ui.card.dataset.task = 'done';
}

/** The buttons, and ← → and Escape anywhere but where the keys are a control's own. */
function wireControls(lesson) {
  const { ui, button } = lesson;
  button.setAttribute('aria-controls', 'lesson');
  button.setAttribute('aria-expanded', 'false');
  button.addEventListener('click', () => (lesson.step == null ? resume(lesson) : ui.title.focus()));
  ui.back.addEventListener('click', () => go(lesson, lesson.step - 1));
  ui.next.addEventListener('click', () => (lesson.summaryShown ? close(lesson) : next(lesson)));
  ui.leave.addEventListener('click', () => close(lesson));
  ui.download.addEventListener('click', () => lesson.progress.download('attnscope-lesson-events.json'));
  ui.startOver.addEventListener('click', () => {
    if (!lesson.overAsked) {
      lesson.overAsked = true;
      ui.note.textContent = quizUi('startOverAsk');
      return;
    }
    lesson.overAsked = false;
    lesson.progress.startOver();
    lesson.quiz = {};
    go(lesson, 1);
  });
  document.addEventListener('keydown', (event) => {
    const { step } = lesson;
    if (step == null || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'Escape') close(lesson);
    else if (event.target.closest?.(KEEPS_ARROWS)) return;
    else if (event.key === 'ArrowRight' && !lesson.summaryShown) next(lesson);
    else if (event.key === 'ArrowLeft' && step > 1) go(lesson, step - 1);
    else return;
    event.preventDefault();
  });
}

/** Open where the learner left off: this visit's step, else the progress kept for this model. */
function resume(lesson) {
  if (lesson.left != null) return go(lesson, lesson.left);
  const kept = lesson.progress.lastStep();
  return go(lesson, kept ?? 1, kept ? quizUi('resumed', { n: kept }) : '');
}

/** The model on screen: the progress follows it (each model keeps its own). */
function followModel(lesson) {
  const model = lesson.page.state.model;
  const key = model ? lessonKey(model) : null;
  if (!key || key === lesson.modelKey) return;
  lesson.modelKey = key;
  lesson.progress.open(key);
  lesson.quiz = {};
  if (lesson.step != null) lesson.progress.startStep(IDS[lesson.step - 1], lesson.step);
}

export function createLesson({ button, page }) {
  const ui = buildCard();
  document.body.append(ui.card);
  // step: 1…STEP_COUNT while open; left: the step to come back to; pick: { stack, layer, position,
  // head }, the token the lesson follows; sentence: what the pick was chosen for; quiz: each
  // check's state; ctx: the step's, as last drawn; started: what the page showed as it opened.
  const lesson = { ui, button, page, step: null, left: null, pick: null, sentence: null, ticket: 0, quiz: {}, progress: createProgress() };
  lesson.redraw = () => render(lesson);
  wireControls(lesson);
  const events = new Set(Object.values(TASKS).map((task) => task.event));
  for (const name of events) listen(name, (detail) => heard(lesson, name, detail));
  listen('model-loaded', () => followModel(lesson));
  // A new answer on screen (another sentence, a step, another model): the step speaks of it.
  new MutationObserver(() => {
    if (lesson.step != null && !lesson.summaryShown && document.body.dataset.ready === 'true' && sentenceKey(page) !== lesson.sentence)
      render(lesson);
  }).observe(document.body, { attributes: true, attributeFilter: ['data-ready'] });
  page.journey.onPick?.((wanted) => {
    if (lesson.step == null || lesson.summaryShown) return;
    lesson.pick = { ...lesson.pick, ...wanted };
    render(lesson);
  });
  onLanguageChange(() => {
    labelStatic(lesson);
    if (lesson.summaryShown) showSummary(lesson);
    else render(lesson);
  });
  labelStatic(lesson);

  return {
    /** Open at step `n` (a link's; undefined: where the learner left off), or close when `n` is null. */
    open: (n) => (n === null ? close(lesson) : n === undefined ? resume(lesson) : go(lesson, n)),
    close: () => close(lesson),
    /** The step shown, or null while the lesson is closed. */
    step: () => lesson.step,
    /** Resolves once the step shown is filled (for the tests and the link). */
    render: () => render(lesson),
  };
}
