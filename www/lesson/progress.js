// The lesson's progress, kept per model in localStorage: which steps are done (by doing their task,
// or skipped), the time spent on each, each graded check's tries, hints and answer, and a log of
// what happened, so that the lesson resumes where the learner left off and a teacher can collect
// the log as JSON. Nothing is sent anywhere.
//
// A model is known by `lessonKey(model)`: its name and its weights' hash (app/models.js
// `weightsHash`), so that a model opened from the computer or trained in the playground has its
// own progress, and a retrained shipped model starts afresh. Each model's record is one storage
// item, `attnscope:lesson:<key>`:
//
//   { version: 1,
//     step,                                   the step shown last (its id), or null
//     steps:  { [stepId]: { done, ms, task } } ms: time shown; task: done by its task, not skipped
//     checks: { [checkId]: { tries, right, firstTry, hints, answer } }   answer: the latest one
//     events: [{ type, at, model, ...detail }] the latest MAX_EVENTS, oldest first }
//
// Events: step_started { step, n }, step_completed { step, how, ms }, check_answered { check,
// answer, right, tries }, hint_shown { check }; `at` is an ISO time, `model` the key.
//
// Without localStorage (private mode, storage blocked or full) `available` is false and the
// lesson works the same, in memory: the progress lasts as long as the page. Nothing here throws.
// Each change is written at once; the time on the step shown is counted while it is shown, and
// written when another step starts, on `pause()`, and when the page is hidden or left.
import { save } from '../ui/export.js';

/** The record's format; a stored record of another is dropped. */
export const PROGRESS_VERSION = 1;
/** How many events a model's record keeps: the latest. */
export const MAX_EVENTS = 2000;
/** Every storage item of the lesson's starts with this, then the model's key. */
export const STORAGE_PREFIX = 'attnscope:lesson:';
/** How a step is completed: by doing its task, or skipped with Next. */
export const HOWS = ['task', 'skipped'];

/**
 * The key a model's progress is kept under: `name#weightsHash`. A model from the computer is
 * named by its label (its config's name or its folder), not by the `-2` the selector adds when it
 * is opened twice in one visit, so that opening it again resumes.
 */
export const lessonKey = (model) => `${model.local ? model.label : model.name}#${model.weightsHash}`;

/** A fresh record. */
export const emptyRecord = () => ({ version: PROGRESS_VERSION, step: null, steps: {}, checks: {}, events: [] });

/** The page's localStorage, or null where even reading it throws (a sandboxed frame, storage blocked). */
function pageStorage() {
  try {
    return globalThis.localStorage ?? null;
  } catch {
    return null;
  }
}

/** Whether `storage` can be written and read back (private modes may refuse, or offer none). */
function usable(storage) {
  const probe = `${STORAGE_PREFIX}probe`;
  try {
    storage.setItem(probe, '1');
    const ok = storage.getItem(probe) === '1';
    storage.removeItem(probe);
    return ok;
  } catch {
    return false;
  }
}

const natural = (value) => (Number.isInteger(value) && value >= 0 ? value : 0);
const time = (value) => (Number.isFinite(value) && value >= 0 ? value : 0);
const entries = (value) => Object.entries(value && typeof value === 'object' ? value : {});

/** An answer as the record keeps it: JSON's plain values (numbers, strings, booleans, lists of them), anything else as text. */
function plainAnswer(value) {
  if (value == null) return null;
  if (Array.isArray(value)) return value.map(plainAnswer);
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  return typeof value === 'string' || typeof value === 'boolean' ? value : String(value);
}

/** A stored record's text kept to the record's shape; a fresh record when it is not one of this version. */
export function parseRecord(text) {
  let raw;
  try {
    raw = JSON.parse(text);
  } catch {
    return emptyRecord();
  }
  if (raw?.version !== PROGRESS_VERSION) return emptyRecord();
  const steps = entries(raw.steps).map(([id, s]) => [id, { done: s?.done === true, ms: time(s?.ms), task: s?.task === true }]);
  const checks = entries(raw.checks).map(([id, c]) => [
    id,
    {
      tries: natural(c?.tries),
      right: c?.right === true,
      firstTry: c?.firstTry === true,
      hints: natural(c?.hints),
      answer: plainAnswer(c?.answer),
    },
  ]);
  const events = (Array.isArray(raw.events) ? raw.events : []).filter((e) => e && typeof e.type === 'string');
  return {
    version: PROGRESS_VERSION,
    step: typeof raw.step === 'string' || Number.isInteger(raw.step) ? raw.step : null,
    steps: Object.fromEntries(steps),
    checks: Object.fromEntries(checks),
    events: events.slice(-MAX_EVENTS),
  };
}

class Progress {
  #storage; // the Storage written to, or null
  #now; // () => milliseconds since 1970 (Date.now): durations and the events' times
  #records = new Map(); // model key → its record, once opened: the truth; storage keeps a copy
  #key = null; // the model open
  #shown = null; // { step, since }: the step shown, and since when (null while paused)
  #hiddenByPage = false; // the page was hidden while a step was shown: it is counted again once visible

  constructor(storage, now, page) {
    this.#storage = storage && usable(storage) ? storage : null;
    this.#now = now;
    this.#listen(page);
  }

  /** Whether the progress is kept beyond this visit: false without storage, or once it refused a write (then the lesson says so). */
  get available() {
    return this.#storage != null;
  }

  /** The model open (its lessonKey), or null before `open`. */
  get key() {
    return this.#key;
  }

  /** Switch to the model `key`: its record is read (once a visit) and returned (a copy). The step shown stops counting. */
  open(key) {
    this.pause();
    this.#shown = null;
    this.#key = key;
    if (!this.#records.has(key)) this.#records.set(key, this.#read(key));
    return this.record();
  }

  /** The open model's record (a copy). */
  record() {
    return structuredClone(this.#record());
  }

  /** Step `stepId` (number `n` of the lesson's, from 1) is shown from now; the step shown before stops counting. */
  startStep(stepId, n) {
    if (this.#shown?.step === stepId && this.#shown.since != null) return;
    this.#stopClock();
    this.#record().step = stepId;
    this.#shown = { step: stepId, since: this.#now() };
    this.#log('step_started', { step: stepId, n });
  }

  /** The step shown stops counting (the lesson left, the page hidden); `resume()` counts it again. */
  pause() {
    if (this.#stopClock()) this.#write();
  }

  resume() {
    if (this.#shown && this.#shown.since == null) this.#shown.since = this.#now();
  }

  /**
   * Step `stepId` is done, `how`: 'task' (its task was done) or 'skipped'. Whether that changed
   * anything: a step done stays done, and a skipped one counts as done by its task once it is.
   */
  completeStep(stepId, how = 'task') {
    if (!HOWS.includes(how)) return false;
    const step = this.#step(stepId);
    if (step.done && (step.task || how === 'skipped')) return false;
    step.done = true;
    step.task = how === 'task';
    this.#log('step_completed', { step: stepId, how, ms: this.stepMs(stepId) });
    return true;
  }

  /**
   * An answer to check `checkId`, right or not; returns the check's state. A check answered right
   * is closed: later answers change nothing.
   */
  answer(checkId, { answer, right }) {
    const check = this.#check(checkId);
    if (check.right) return { ...check };
    check.tries += 1;
    check.right = right === true;
    check.firstTry = check.tries === 1 && check.right;
    check.answer = plainAnswer(answer);
    this.#log('check_answered', { check: checkId, answer: check.answer, right: check.right, tries: check.tries });
    return { ...check };
  }

  /** Check `checkId`'s hint was shown; returns the check's state. */
  hint(checkId) {
    const check = this.#check(checkId);
    check.hints += 1;
    this.#log('hint_shown', { check: checkId });
    return { ...check };
  }

  /** The step shown last (its id), where the lesson resumes, or null. */
  lastStep() {
    return this.#record().step;
  }

  isDone(stepId) {
    return this.#record().steps[stepId]?.done === true;
  }

  /** Check `checkId`'s { tries, right, firstTry, hints, answer }, or null before its first answer or hint. */
  checkState(checkId) {
    const check = this.#record().checks[checkId];
    return check ? { ...check } : null;
  }

  /** The milliseconds step `stepId` has been shown, now included when it is shown. */
  stepMs(stepId) {
    const kept = this.#record().steps[stepId]?.ms ?? 0;
    const running = this.#shown?.step === stepId && this.#shown.since != null ? this.#now() - this.#shown.since : 0;
    return kept + running;
  }

  /**
   * The end's summary over the lesson's steps and checks: { checks, answered, right,
   * rightFirstTime, hintsUsed, perStep: [{ step, ms, done }], totalMs }.
   */
  summary(stepIds, checkIds) {
    const checks = checkIds.map((id) => this.#record().checks[id]).filter(Boolean);
    const perStep = stepIds.map((step) => ({
      step,
      ms: this.stepMs(step),
      done: this.isDone(step),
      task: this.#record().steps[step]?.task === true,
    }));
    return {
      checks: checkIds.length,
      answered: checks.filter((c) => c.tries > 0).length,
      right: checks.filter((c) => c.right).length,
      rightFirstTime: checks.filter((c) => c.firstTry).length,
      hintsUsed: checks.reduce((sum, c) => sum + c.hints, 0),
      perStep,
      totalMs: perStep.reduce((sum, s) => sum + s.ms, 0),
    };
  }

  /**
   * Forget the open model's progress, its events too (a shared classroom machine), or, with `{ all:
   * true }`, every model's the lesson has kept on this browser. The open model starts afresh.
   */
  startOver({ all = false } = {}) {
    this.#shown = null;
    const keys = all ? this.#storedKeys() : [this.#key];
    for (const key of keys) this.#remove(key);
    if (all) this.#records.clear();
    this.#records.set(this.#key, emptyRecord());
  }

  /**
   * The events as JSON text: { version, exportedAt, available, events } with the open model's
   * events, or, with `{ all: true }`, every model's kept on this browser, oldest first.
   */
  eventsJson({ all = false } = {}) {
    const keys = all ? new Set([...this.#storedKeys(), ...this.#records.keys()]) : [this.#key];
    const events = [...keys].flatMap((key) => this.#records.get(key)?.events ?? this.#read(key).events);
    if (all) events.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    const at = new Date(this.#now()).toISOString();
    return JSON.stringify({ version: PROGRESS_VERSION, exportedAt: at, available: this.available, events }, null, 1);
  }

  /** Save `eventsJson(options)` as the file `filename` (the browser's download); whether it could. */
  download(filename = 'attnscope-lesson.json', options = {}) {
    try {
      save(new Blob([this.eventsJson(options)], { type: 'application/json' }), filename);
      return true;
    } catch {
      return false;
    }
  }

  #record() {
    if (!this.#records.has(this.#key)) this.#records.set(this.#key, emptyRecord());
    return this.#records.get(this.#key);
  }

  #step(stepId) {
    const { steps } = this.#record();
    steps[stepId] ??= { done: false, ms: 0, task: false };
    return steps[stepId];
  }

  #check(checkId) {
    const { checks } = this.#record();
    checks[checkId] ??= { tries: 0, right: false, firstTry: false, hints: 0, answer: null };
    return checks[checkId];
  }

  /** Add the time the step shown has been shown to its record; whether it was counting. */
  #stopClock() {
    if (this.#shown?.since == null) return false;
    this.#step(this.#shown.step).ms += Math.max(0, this.#now() - this.#shown.since);
    this.#shown.since = null;
    return true;
  }

  /** Log event `type` with `detail` and write the record. */
  #log(type, detail) {
    const { events } = this.#record();
    events.push({ type, at: new Date(this.#now()).toISOString(), model: this.#key, ...detail });
    if (events.length > MAX_EVENTS) events.splice(0, events.length - MAX_EVENTS);
    this.#write();
  }

  /** Write the open model's record; storage that fails (full, revoked) is given up for this visit. */
  #write() {
    if (!this.#storage || this.#key == null) return;
    try {
      this.#storage.setItem(STORAGE_PREFIX + this.#key, JSON.stringify(this.#record()));
    } catch {
      this.#storage = null;
    }
  }

  #read(key) {
    try {
      const text = this.#storage?.getItem(STORAGE_PREFIX + key);
      return text == null ? emptyRecord() : parseRecord(text);
    } catch {
      return emptyRecord();
    }
  }

  #remove(key) {
    this.#records.delete(key);
    try {
      this.#storage?.removeItem(STORAGE_PREFIX + key);
    } catch {
      // Nothing kept to remove.
    }
  }

  /** The model keys with a stored record. */
  #storedKeys() {
    const keys = [];
    try {
      for (let i = 0; i < (this.#storage?.length ?? 0); i++) {
        const item = this.#storage.key(i);
        if (item?.startsWith(STORAGE_PREFIX) && item !== `${STORAGE_PREFIX}probe`) keys.push(item.slice(STORAGE_PREFIX.length));
      }
    } catch {
      // Storage gone: only the records in memory.
    }
    return keys;
  }

  /** The page's hiding stops the clock and writes; its showing again restarts it. */
  #listen(page) {
    const hide = () => {
      if (this.#shown?.since == null) return;
      this.#hiddenByPage = true;
      this.pause();
    };
    const show = () => {
      if (!this.#hiddenByPage) return;
      this.#hiddenByPage = false;
      this.resume();
    };
    page?.addEventListener?.('pagehide', hide);
    page?.addEventListener?.('pageshow', show);
    const doc = page?.document;
    doc?.addEventListener?.('visibilitychange', () => (doc.visibilityState === 'hidden' ? hide() : show()));
  }
}

/**
 * The lesson's progress store over `storage` (localStorage by default; null or a failing one: in
 * memory). `now`: the clock (Date.now); `page`: where `pagehide`, `pageshow` and the document's
 * `visibilitychange` are heard (globalThis; null: nowhere).
 */
export function createProgress(storage = pageStorage(), { now = Date.now, page = globalThis } = {}) {
  return new Progress(storage, now, page);
}
