// The lesson's progress store (www/lesson/progress.js), in node over a storage of its own: the
// summary after a scripted visit, the step it resumes at once read again, the same lesson in
// memory where storage refuses, "start over", the event log and its cap. Then the key it keeps
// models under: the weights' hash (www/worker/model-folder.js fileHash, against an FNV-1a written
// here with BigInt), and in the page, each model's `weightsHash`: a shipped model's is its
// models/index.json hash, a model opened from files the FNV-1a of its weights, a playground run's
// its step 0's through the run.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { createProgress, emptyRecord, lessonKey, MAX_EVENTS, parseRecord, STORAGE_PREFIX } from '../../www/lesson/progress.js';
import { Fnv1a64, fileHash } from '../../www/worker/model-folder.js';
import { servePage, waitReady, withPage } from './harness.mjs';

const site = servePage();
const MODELS = new URL('../../models/', import.meta.url);
const index = JSON.parse(readFileSync(new URL('index.json', MODELS)));
const indexHash = (name) => index.models.find((m) => m.name === name).files['model.safetensors'];

/** localStorage's interface over a Map; `failSetFrom: n`: setItem throws from its n-th call on. */
function memoryStorage({ failSetFrom = Number.POSITIVE_INFINITY } = {}) {
  const items = new Map();
  let sets = 0;
  return {
    items,
    get length() {
      return items.size;
    },
    key: (i) => [...items.keys()][i] ?? null,
    getItem: (key) => (items.has(key) ? items.get(key) : null),
    setItem(key, value) {
      sets += 1;
      if (sets >= failSetFrom) throw new DOMException('full', 'QuotaExceededError');
      items.set(key, String(value));
    },
    removeItem: (key) => items.delete(key),
  };
}

/** A clock the test moves: `clock.now()`, `clock.tick(ms)`; it starts at 2025-01-01T00:00:00Z. */
function testClock() {
  let t = Date.UTC(2025, 0, 1);
  return { now: () => t, tick: (ms) => (t += ms) };
}

const STEPS = ['overview', 'matrix', 'scale'];
const CHECKS = ['top-key', 'dk', 'predict'];

/**
 * A visit: overview 5 s then done by its task; matrix 7 s, its check wrong, a hint, right; then
 * skipped; scale 3 s, its check right at once, still shown. `dk` right first time, `predict` never.
 */
function visit(progress, clock) {
  progress.startStep('overview', 1);
  clock.tick(5000);
  assert.equal(progress.completeStep('overview', 'task'), true);
  progress.startStep('matrix', 2);
  clock.tick(4000);
  assert.deepEqual(progress.answer('top-key', { answer: 'cat', right: false }), {
    tries: 1,
    right: false,
    firstTry: false,
    hints: 0,
    answer: 'cat',
  });
  progress.hint('top-key');
  clock.tick(3000);
  progress.answer('top-key', { answer: 'Katze', right: true });
  // A check answered right is closed.
  assert.equal(progress.answer('top-key', { answer: 'dog', right: false }).tries, 2);
  assert.equal(progress.completeStep('matrix', 'skipped'), true);
  assert.equal(progress.completeStep('matrix', 'skipped'), false, 'a step done stays done');
  progress.startStep('scale', 3);
  progress.answer('dk', { answer: 64, right: true });
  clock.tick(3000);
}

const SUMMARY = {
  checks: 3,
  answered: 2,
  right: 2,
  rightFirstTime: 1,
  hintsUsed: 1,
  perStep: [
    { step: 'overview', ms: 5000, done: true, task: true },
    { step: 'matrix', ms: 7000, done: true, task: false },
    { step: 'scale', ms: 3000, done: false, task: false },
  ],
  totalMs: 15000,
};

test('a scripted visit: its summary, its events, and where it resumes once the store is read again', () => {
  const storage = memoryStorage();
  const clock = testClock();
  const progress = createProgress(storage, { now: clock.now, page: null });
  assert.equal(progress.available, true);
  assert.deepEqual(progress.open('en-zh#abc'), emptyRecord());
  visit(progress, clock);
  assert.deepEqual(progress.summary(STEPS, CHECKS), SUMMARY);
  assert.equal(progress.isDone('overview'), true);
  assert.equal(progress.isDone('scale'), false);
  assert.deepEqual(progress.checkState('top-key'), { tries: 2, right: true, firstTry: false, hints: 1, answer: 'Katze' });
  assert.equal(progress.checkState('predict'), null);
  assert.deepEqual(
    progress.record().events.map(({ type, at, model, ...detail }) => [type, at.slice(11, 19), model, detail]),
    [
      ['step_started', '00:00:00', 'en-zh#abc', { step: 'overview', n: 1 }],
      ['step_completed', '00:00:05', 'en-zh#abc', { step: 'overview', how: 'task', ms: 5000 }],
      ['step_started', '00:00:05', 'en-zh#abc', { step: 'matrix', n: 2 }],
      ['check_answered', '00:00:09', 'en-zh#abc', { check: 'top-key', answer: 'cat', right: false, tries: 1 }],
      ['hint_shown', '00:00:09', 'en-zh#abc', { check: 'top-key' }],
      ['check_answered', '00:00:12', 'en-zh#abc', { check: 'top-key', answer: 'Katze', right: true, tries: 2 }],
      ['step_completed', '00:00:12', 'en-zh#abc', { step: 'matrix', how: 'skipped', ms: 7000 }],
      ['step_started', '00:00:12', 'en-zh#abc', { step: 'scale', n: 3 }],
      ['check_answered', '00:00:12', 'en-zh#abc', { check: 'dk', answer: 64, right: true, tries: 1 }],
    ],
  );
  assert.equal(progress.record().events[0].at, '2025-01-01T00:00:00.000Z');

  // The page is left: the step shown stops counting and is written; a new visit resumes there.
  progress.pause();
  clock.tick(60_000);
  assert.deepEqual(progress.summary(STEPS, CHECKS), SUMMARY, 'a paused step does not count');
  const again = createProgress(storage, { now: clock.now, page: null });
  again.open('en-zh#abc');
  assert.equal(again.lastStep(), 'scale');
  assert.deepEqual(again.summary(STEPS, CHECKS), SUMMARY);
  assert.deepEqual(again.record(), progress.record());
  // Another model has its own record.
  assert.deepEqual(again.open('date-iso#def'), emptyRecord());
  assert.equal(again.lastStep(), null);
  assert.deepEqual([...storage.items.keys()], [`${STORAGE_PREFIX}en-zh#abc`]);
});

test('where storage refuses, the lesson keeps its progress in memory: on access, on every write, once full', () => {
  const blocked = {
    getItem() {
      throw new DOMException('blocked', 'SecurityError');
    },
    setItem() {
      throw new DOMException('blocked', 'SecurityError');
    },
    removeItem() {
      throw new DOMException('blocked', 'SecurityError');
    },
  };
  const noWrites = { ...memoryStorage({ failSetFrom: 1 }) };
  const descriptor = Object.getOwnPropertyDescriptor(globalThis, 'localStorage');
  Object.defineProperty(globalThis, 'localStorage', {
    configurable: true,
    get() {
      throw new DOMException('The document is sandboxed', 'SecurityError');
    },
  });
  try {
    for (const [why, storage] of [
      ['reading localStorage throws', undefined],
      ['no storage', null],
      ['every call throws', blocked],
      ['setItem throws', noWrites],
    ]) {
      const clock = testClock();
      const progress = createProgress(storage, { now: clock.now, page: null });
      assert.equal(progress.available, false, why);
      progress.open('en-zh#abc');
      visit(progress, clock);
      assert.deepEqual(progress.summary(STEPS, CHECKS), SUMMARY, why);
      // Another model and back: the visit's progress is still there, for as long as the page is.
      progress.open('date-iso#def');
      assert.equal(progress.open('en-zh#abc').step, 'scale', why);
      assert.equal(progress.record().events.length, 9, why);
      assert.doesNotThrow(() => progress.startOver({ all: true }), why);
      assert.deepEqual(progress.record(), emptyRecord(), why);
    }
  } finally {
    if (descriptor) Object.defineProperty(globalThis, 'localStorage', descriptor);
    else delete globalThis.localStorage;
  }

  // Storage that fills up during the visit: the probe and 3 writes succeed, then the store goes on in memory.
  const full = memoryStorage({ failSetFrom: 5 });
  const clock = testClock();
  const progress = createProgress(full, { now: clock.now, page: null });
  progress.open('en-zh#abc');
  visit(progress, clock);
  assert.equal(progress.available, false);
  assert.deepEqual(progress.summary(STEPS, CHECKS), SUMMARY);
  assert.equal(parseRecord(full.getItem(`${STORAGE_PREFIX}en-zh#abc`)).events.length, 3, 'the writes before it filled up');
});

test('start over forgets the open model, or every model; the log keeps the latest events; the download JSON', () => {
  const storage = memoryStorage();
  storage.setItem('another-site-key', 'kept');
  const clock = testClock();
  const progress = createProgress(storage, { now: clock.now, page: null });
  for (const key of ['date-iso#def', 'en-zh#abc']) {
    progress.open(key);
    visit(progress, clock);
  }
  progress.startOver();
  assert.deepEqual(progress.record(), emptyRecord());
  assert.equal(progress.lastStep(), null);
  assert.deepEqual(progress.summary(STEPS, CHECKS), {
    checks: 3,
    answered: 0,
    right: 0,
    rightFirstTime: 0,
    hintsUsed: 0,
    perStep: STEPS.map((step) => ({ step, ms: 0, done: false, task: false })),
    totalMs: 0,
  });
  assert.deepEqual([...storage.items.keys()], ['another-site-key', `${STORAGE_PREFIX}date-iso#def`]);
  const fresh = createProgress(storage, { now: clock.now, page: null });
  assert.equal(fresh.open('en-zh#abc').step, null, 'gone from storage too');
  assert.equal(fresh.open('date-iso#def').step, 'scale', 'the other model kept its own');
  fresh.startOver({ all: true });
  assert.deepEqual([...storage.items.keys()], ['another-site-key']);

  // The log keeps the latest MAX_EVENTS.
  progress.open('en-zh#abc');
  for (let i = 0; i < MAX_EVENTS + 5; i++) progress.answer(`c${i}`, { answer: i, right: false });
  const { events } = progress.record();
  assert.equal(events.length, MAX_EVENTS);
  assert.deepEqual(events[0].check, 'c5');
  assert.equal(parseRecord(storage.getItem(`${STORAGE_PREFIX}en-zh#abc`)).events.length, MAX_EVENTS);

  // The download: this model's events, or every model's, oldest first.
  progress.startOver({ all: true });
  progress.open('a#1');
  progress.hint('x');
  clock.tick(1000);
  progress.open('b#2');
  progress.hint('y');
  assert.deepEqual(JSON.parse(progress.eventsJson()), {
    version: 1,
    exportedAt: '2025-01-01T00:00:31.000Z',
    available: true,
    events: [{ type: 'hint_shown', at: '2025-01-01T00:00:31.000Z', model: 'b#2', check: 'y' }],
  });
  assert.deepEqual(
    JSON.parse(progress.eventsJson({ all: true })).events.map((e) => `${e.model} ${e.check}`),
    ['a#1 x', 'b#2 y'],
  );
  assert.equal(progress.download('lesson.json'), false, 'no document in node: no download, and no throw');
});

test('the time on the step shown is written when the page is hidden or left, and counts again once it is back', () => {
  const storage = memoryStorage();
  const clock = testClock();
  const page = new EventTarget();
  const progress = createProgress(storage, { now: clock.now, page });
  progress.open('en-zh#abc');
  progress.startStep('overview', 1);
  clock.tick(2000);
  page.dispatchEvent(new Event('pagehide'));
  assert.equal(parseRecord(storage.getItem(`${STORAGE_PREFIX}en-zh#abc`)).steps.overview.ms, 2000);
  clock.tick(10_000);
  page.dispatchEvent(new Event('pageshow'));
  clock.tick(500);
  assert.equal(progress.stepMs('overview'), 2500);
  // Starting the step shown again changes nothing.
  progress.startStep('overview', 1);
  assert.equal(progress.record().events.length, 1);
});

test('a stored record is kept to its shape; another version is dropped', () => {
  assert.deepEqual(parseRecord('not json'), emptyRecord());
  assert.deepEqual(parseRecord(JSON.stringify({ version: 2, step: 'x' })), emptyRecord());
  const record = parseRecord(
    JSON.stringify({
      version: 1,
      step: 'scale',
      steps: { scale: { done: 'yes', ms: -4, task: true }, matrix: { done: true, ms: 12 } },
      checks: { dk: { tries: 2.5, right: true, firstTry: 1, hints: 3, answer: { a: 1 } } },
      events: [{ type: 'hint_shown', check: 'dk' }, 'junk', null],
    }),
  );
  assert.deepEqual(record, {
    version: 1,
    step: 'scale',
    steps: { scale: { done: false, ms: 0, task: true }, matrix: { done: true, ms: 12, task: false } },
    checks: { dk: { tries: 0, right: true, firstTry: false, hints: 3, answer: '[object Object]' } },
    events: [{ type: 'hint_shown', check: 'dk' }],
  });
});

test('the lesson key: a shipped model by its name, a local one by its label, each with its weights hash', () => {
  assert.equal(lessonKey({ name: 'en-zh', weightsHash: '0123456789abcdef' }), 'en-zh#0123456789abcdef');
  assert.equal(
    lessonKey({ local: true, name: 'local:my-dates-2', label: 'my-dates', weightsHash: 'fedcba9876543210' }),
    'my-dates#fedcba9876543210',
  );
});

/** FNV-1a, 64 bits, as its definition says, with BigInt: the reference for the module's 16-bit limbs. */
function referenceFnv(...parts) {
  let h = 0xcbf29ce484222325n;
  for (const bytes of parts) {
    for (const byte of bytes) h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  }
  return h.toString(16).padStart(16, '0');
}

test('the weights hash: FNV-1a of the bytes; above 8 MiB, of the length, the first and the last 4 MiB', async () => {
  const text = (s) => new Fnv1a64().update(new TextEncoder().encode(s)).hex();
  // The published test vectors.
  assert.equal(text(''), 'cbf29ce484222325');
  assert.equal(text('a'), 'af63dc4c8601ec8c');
  assert.equal(text('foobar'), '85944171f73967e8');
  const weights = readFileSync(new URL('date-iso/model.safetensors', MODELS));
  const hash = await fileHash(new Blob([weights]));
  assert.equal(hash, referenceFnv(weights));

  const MiB = 1024 * 1024;
  const big = new Uint8Array(9 * MiB);
  for (let i = 0; i < big.length; i++) big[i] = (i * 2654435761) >>> 24;
  const length = new Uint8Array(8);
  new DataView(length.buffer).setBigUint64(0, BigInt(big.length), true);
  assert.equal(await fileHash(new Blob([big])), referenceFnv(length, big.subarray(0, 4 * MiB), big.subarray(big.length - 4 * MiB)));
  // A byte in the middle is not read; one at either end is.
  const middle = big.slice();
  middle[4.5 * MiB] ^= 1;
  assert.equal(await fileHash(new Blob([middle])), await fileHash(new Blob([big])));
  const end = big.slice();
  end[big.length - 1] ^= 1;
  assert.notEqual(await fileHash(new Blob([end])), await fileHash(new Blob([big])));
});

const MODEL_FILES = ['config.json', 'model.safetensors', 'src_tokenizer.json', 'tgt_tokenizer.json'];

/** The page's model: its name, its weights hash and its lesson key. */
const shownModel = (page) =>
  page.evaluate(async () => {
    const { lessonKey } = await import('/lesson/progress.js');
    const { model } = window.__attnscope.state;
    return { name: model.name, weightsHash: model.weightsHash, key: lessonKey(model) };
  });

const waitModel = (page, name) =>
  page.waitForFunction((m) => document.body.dataset.model === m && document.body.dataset.ready === 'true', name, {
    timeout: 90_000,
  });

test('each model in the page has its weights hash: shipped, opened from files', { timeout: 180_000 }, () =>
  withPage(site.origin, '?backend=cpu', async ({ page, consoleErrors }) => {
    await waitReady(page);
    const enZh = await shownModel(page);
    assert.deepEqual(enZh, { name: 'en-zh', weightsHash: indexHash('en-zh'), key: `en-zh#${indexHash('en-zh')}` });
    await page.selectOption('#model-select', 'date-iso');
    await waitModel(page, 'date-iso');
    const dateIso = await shownModel(page);
    assert.deepEqual(dateIso, { name: 'date-iso', weightsHash: indexHash('date-iso'), key: `date-iso#${indexHash('date-iso')}` });
    assert.notEqual(enZh.weightsHash, dateIso.weightsHash);

    // date-iso's own files, opened from the computer: the FNV-1a of its weights.
    const folder = new URL('date-iso/', MODELS).pathname;
    await page.setInputFiles(
      '#model-files',
      MODEL_FILES.map((file) => folder + file),
    );
    await waitModel(page, 'local:date-iso');
    const weights = readFileSync(new URL('date-iso/model.safetensors', MODELS));
    assert.deepEqual(await shownModel(page), {
      name: 'local:date-iso',
      weightsHash: referenceFnv(weights),
      key: `date-iso#${referenceFnv(weights)}`,
    });
    assert.deepEqual(consoleErrors, []);
  }),
);

test('a playground run keeps its step 0 weights hash through its snapshots, and when it is picked again', { timeout: 240_000 }, () =>
  withPage(site.origin, '?backend=cpu', async ({ page, consoleErrors }) => {
    await waitReady(page);
    await page.click('#playground-details summary');
    await page.waitForSelector('#playground[data-ready="true"]', { timeout: 120_000 });
    await waitModel(page, 'local:playground-reverse');
    const start = await shownModel(page);
    assert.match(start.weightsHash, /^[0-9a-f]{16}$/);
    assert.equal(start.key, `playground-reverse#${start.weightsHash}`);
    await page.click('#playground button.run-step');
    await page.waitForFunction(() => document.body.dataset.snapshot === '1', null, { timeout: 120_000 });
    assert.deepEqual(await shownModel(page), start);
    // Picked again, the run's entry opens with its latest weights, under its first name.
    await page.selectOption('#model-select', 'date-iso');
    await waitModel(page, 'date-iso');
    await page.selectOption('#model-select', 'local:playground-reverse');
    await waitModel(page, 'local:playground-reverse');
    assert.deepEqual(await shownModel(page), start);
    assert.deepEqual(consoleErrors, []);
  }),
);
