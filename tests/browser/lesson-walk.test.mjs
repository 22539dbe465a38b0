// The whole lesson, walked as a learner would: at every step the task is done with the page's own
// controls (the card says when it is), and every graded check is answered wrong first (the hint
// shows) and then right. The right answer is not read from the page: it is recomputed here from
// the native CLI (`attnscope inspect --json`, `trace --json`) for the sentence and the token the
// card follows, so a page that graded against another number would call it wrong. Walked in both
// languages on the running example, and in one language on a second sentence and on date-iso; each
// check's answer must differ in at least one of these walks (no check is answerable from the
// text alone). Then the summary counts the tries, the events download holds them, and a reload
// resumes where the walk stopped; Start over clears it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import { launchChromium, pointAtCell, servePage, waitLessonStep, waitReady, waitSettled } from './harness.mjs';
import { expected, nextPrefix, pickOf, WALKS } from './lesson-walk-expected.mjs';

const ROOT = new URL('../../', import.meta.url).pathname;
const CLI = `${ROOT}target/release/attnscope`;
const site = servePage();

const memo = new Map();
/** The CLI's JSON answer for `args` (memoised: a walk asks the same twice). */
function cli(args) {
  const key = args.join('\u0000');
  if (!memo.has(key)) memo.set(key, JSON.parse(execFileSync(CLI, args, { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 28 })));
  return memo.get(key);
}

async function pointAtCentre(page, selector) {
  const target = page.locator(selector).first();
  await target.scrollIntoViewIfNeeded();
  const box = await target.boundingBox();
  await page.mouse.move(1, 1);
  await page.mouse.move(box.x + box.width * 0.37, box.y + box.height / 2);
}

/** Do step `id`'s task with the page's controls. */
async function doTask(page, id, walk, card) {
  const trace = () => page.evaluate(() => window.__attnscope.state.trace);
  const pick = pickOf(card);
  switch (id) {
    case 'overview':
      await page.fill('#source-input', walk.text);
      return waitSettled(page);
    case 'qkv':
      return page.selectOption('#journey-token', String(walk.position));
    case 'dot':
    case 'softmax':
    case 'matrix': {
      const t = await trace();
      const stack = t.encoderSelfAttention;
      return pointAtCell(page, '#focus-heatmap canvas.matrix', stack.queries, stack.keys, pick.position, 0);
    }
    case 'weighted':
      return pointAtCentre(page, '#journey .j-block[data-part=selfAttention] canvas.j-contributions');
    case 'heads':
      return page.selectOption('#head-select', String((pick.head + 1) % 4));
    case 'scale':
      return page.click('#stages-scale');
    case 'norm':
      return page.selectOption('#journey-layer', '1');
    case 'ffn':
      return pointAtCentre(page, '#journey .j-block[data-part=feedForward] .j-vec[data-vector=hidden] canvas');
    case 'positional':
      return pointAtCentre(page, '#positional canvas');
    case 'sinusoids':
      return page.selectOption('#positional select.positional-pair', '2');
    case 'placement':
      return pointAtCentre(page, `#journey .j-block[data-part=selfAttention] .j-vec[data-vector=${walk.norm}] canvas`);
    case 'padding': {
      const n = await page.evaluate(() => window.__attnscope.state.batch.encoderSelfAttention[1].queries);
      return pointAtCell(page, '#mask-padding canvas.matrix', n, n, 0, n - 1);
    }
    case 'causal': {
      const rows = (await trace()).causalMask.rows;
      return pointAtCell(page, '#mask-causal canvas.matrix', rows, rows, 0, rows - 1);
    }
    case 'teacher':
      await page.fill('#prefix-input', nextPrefix(walk, cli));
      await page.click('#prefix-button');
      return waitSettled(page);
    case 'decoderBlock':
      return page.selectOption('#journey-stack', 'decoder');
    case 'cross':
      return null; // the prediction's Step ▶ is the task (answerCheck)
    case 'decoding':
      await page.locator('#model-view button.thumb[data-kind=cross][data-layer="0"][data-head="0"]').focus();
      return page.keyboard.press('x');
    default:
      throw new Error(`no task for ${id}`);
  }
}

/** The check's state in the card. */
const outcome = (page) => page.evaluate(() => document.querySelector('#lesson .lesson-check')?.dataset.outcome ?? null);

async function answer(page, kind, value) {
  if (kind === 'number') {
    await page.fill('#lesson .lesson-number', String(value));
    await page.press('#lesson .lesson-number', 'Enter');
  } else {
    await page.click(`#lesson .lesson-option[data-value="${value}"]`);
  }
}

/** Answer the step's check wrong, then right; returns the right answer. */
async function answerCheck(page, id, walk, card) {
  const kind = await page.evaluate(() => document.querySelector('#lesson .lesson-check')?.dataset.kind ?? null);
  if (!kind) return undefined;
  if (id === 'cross') return predict(page, walk, card);
  const right = expected(id, walk, card, cli);
  const wrong = kind === 'number' ? right.value + 37 : right.wrong;
  await answer(page, kind, wrong);
  await page.waitForFunction(() => document.querySelector('#lesson .lesson-check')?.dataset.outcome === 'wrong');
  const hint = await page.textContent('#lesson .lesson-feedback');
  assert.match(hint, /Hint|提示/, `${id}: a wrong answer shows the hint`);
  await answer(page, kind, kind === 'number' ? right.value.toFixed(right.digits) : right.value);
  await page
    .waitForFunction(() => document.querySelector('#lesson .lesson-check')?.dataset.outcome === 'right', null, { timeout: 5000 })
    .catch(() => {});
  assert.equal(await outcome(page), 'right', `${id}: ${JSON.stringify(right)} is graded right`);
  // A choice is told apart by what it names (the key's token, the candidate), not by its index.
  return kind === 'number'
    ? right.value
    : `${right.value}:${await page.textContent(`#lesson .lesson-option[data-value="${right.value}"]`)}`;
}

/** The cross step: Back, predict wrong, Step ▶ (graded wrong); Back, predict right, Step ▶. */
async function predict(page, walk) {
  for (const attempt of ['wrong', 'right']) {
    const rows = await page.evaluate(() => window.__attnscope.state.trace.decoderSelfAttention.queries);
    await page.click('#step-back');
    await waitSettled(page);
    await page.waitForFunction(
      (r) => {
        const card = document.getElementById('lesson');
        return card.dataset.state === 'ready' && card.dataset.rows === String(r);
      },
      rows - 1,
      { timeout: 60_000 },
    );
    const card = await waitLessonStep(page, walk.crossStep);
    const right = expected('cross', walk, card, cli);
    await page.click(`#lesson .lesson-option[data-value="${attempt === 'right' ? right.value : right.wrong}"]`);
    await page.click('#step-forward');
    await page.waitForFunction((o) => document.querySelector('#lesson .lesson-check')?.dataset.outcome === o, attempt, { timeout: 30_000 });
    if (attempt === 'right') return `${right.value}:${await page.textContent(`#lesson .lesson-option[data-value="${right.value}"]`)}`;
  }
}

async function walkLesson(browser, walk) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: walk.lang === 'zh-CN' ? 'zh-CN' : 'en-US' });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (error) => errors.push(String(error)));
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  await page.goto(`${site.origin}/?test&backend=cpu${walk.model === 'en-zh' ? '' : `&model=${walk.model}`}`);
  await waitReady(page);
  await waitSettled(page);
  await page.click('#lesson-button');
  const answers = {};
  const total = await page.evaluate(() => Number(document.querySelector('#lesson .lesson-counter').textContent.match(/\d+\D+(\d+)/)[1]));
  for (let n = 1; n <= total; n++) {
    let card = await waitLessonStep(page, n);
    const id = card.stepId;
    if (id === 'cross') walk.crossStep = n;
    if (id === 'decoding') answers[id] = await answerCheck(page, id, walk, card); // before a head goes off
    if (id !== 'cross') {
      await doTask(page, id, walk, card);
      await page.waitForFunction(() => document.getElementById('lesson').dataset.task === 'done', null, { timeout: 30_000 });
    }
    card = await waitLessonStep(page, n);
    if (id !== 'decoding') answers[id] = await answerCheck(page, id, walk, card);
    assert.equal(await page.evaluate(() => document.getElementById('lesson').dataset.task), 'done', `${id}: the task is done`);
    await page.click('#lesson .lesson-next');
  }
  assert.equal(await page.evaluate(() => document.getElementById('lesson').dataset.state), 'summary');
  const summary = await page.evaluate(() => {
    const checks = document.querySelector('#lesson .lesson-summary-checks').dataset;
    return {
      right: Number(checks.right),
      total: Number(checks.total),
      hints: Number(document.querySelector('#lesson .lesson-summary-hints').dataset.hints),
    };
  });
  const graded = Object.values(answers).filter((a) => a !== undefined).length;
  assert.deepEqual(summary, { right: 0, total: graded, hints: graded }, 'every check was answered wrong once, then right');
  const how = await page.evaluate(() => [...document.querySelectorAll('#lesson .lesson-summary-steps li')].map((li) => li.dataset.how));
  assert.deepEqual(how, new Array(total).fill('task'), 'every step is listed as done by its task');
  assert.deepEqual(errors, []);
  return { page, context, answers };
}

test('the lesson, walked: every task done, every check answered wrong then right against the CLI', { timeout: 600_000 }, async () => {
  assert.ok(existsSync(CLI), `${CLI} is built (cargo build --release)`);
  const browser = await launchChromium();
  try {
    const results = [];
    // LESSON_WALKS=0,2 walks only those (while debugging one).
    const only = process.env.LESSON_WALKS?.split(',').map(Number);
    for (const walk of only ? WALKS.filter((_, i) => only.includes(i)) : WALKS) {
      const { page, context, answers } = await walkLesson(browser, walk);
      results.push({ walk, answers });
      console.log(walk.lang, walk.model, JSON.stringify(answers));
      if (walk === WALKS[0]) await resumeAndStartOver(page);
      await context.close();
    }
    // Each check's answer changes in at least one walk: the text alone cannot answer it.
    if (only) return;
    const ids = new Set(results.flatMap((r) => Object.keys(r.answers).filter((id) => r.answers[id] !== undefined)));
    assert.ok(ids.size >= 10, `at least 10 graded checks (${[...ids]})`);
    for (const id of ids) {
      const seen = new Set(results.map((r) => JSON.stringify(r.answers[id])));
      assert.ok(seen.size > 1, `${id}'s answer is the same in every walk: ${[...seen]}`);
    }
  } finally {
    await browser.close();
  }
});

/** The events download holds the walk; a reload resumes at the last step; Start over clears. */
async function resumeAndStartOver(page) {
  const events = await page.evaluate(() =>
    Object.keys(localStorage)
      .filter((key) => key.startsWith('attnscope:lesson:'))
      .flatMap((key) => JSON.parse(localStorage.getItem(key)).events ?? []),
  );
  const kinds = new Set(events.map((e) => e.type ?? e.event ?? e.name));
  for (const kind of ['step_started', 'step_completed', 'check_answered', 'hint_shown']) assert.ok(kinds.has(kind), `events hold ${kind}`);
  await page.reload();
  await waitReady(page);
  await waitSettled(page);
  await page.click('#lesson-button');
  const card = await waitLessonStep(page, await page.evaluate(() => Number(document.getElementById('lesson').dataset.step)));
  assert.ok(Number(card.step) > 1, 'the lesson resumes where it was left');
  await page.click('#lesson .lesson-start-over');
  await page.click('#lesson .lesson-start-over');
  await waitLessonStep(page, 1);
}
