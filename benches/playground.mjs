#!/usr/bin/env node
// The playground's budgets (issue 56), measured side by side in one invocation, RUNS (5) runs,
// the engines interleaved run by run (each run starts with the next engine in turn):
//   - torch: benches/playground_torch.py, PyTorch eager on one CPU thread, the identical model and
//     step (batch 32): steps per second, the median of 100-step windows after 20 warm-up steps;
//   - native: `attnscope playground --task reverse --seed RUN --eval-every 1500 --json`: the CLI's
//     own steps per second over the whole 1,500-step run (its first steps included, evaluations
//     not);
//   - page: headless Chromium. (a) The page's training worker through www/playground/client.js,
//     as the playground panel drives it: time from start(config) (pressing Train; the module is
//     already loaded, as it is once the playground is open) to the first held-out evaluation with
//     greedy exact match ≥ 99 %, seed RUN, and the steps per second the worker's `reports` notices
//     give meanwhile (their median; they count the evaluations and snapshots between chunks).
//     (b) A worker of this bench calling the module's Playground.step directly: steps per second
//     of the steps alone (median of 100-step windows after 20 warm-up steps), and one evaluate()
//     and one modelFolder() timed: what the notices' figure carries besides steps.
//   - every engine again at batch 1 (300 steps): the fixed cost of a step.
// Budgets: ≥ 99 % within 20 s (median of the runs, no run over 30 s); the page ≥ 0.5× and the
// native CLI ≥ 1.0× PyTorch's steps per second (the median of the per-run ratios); pkg/train
// ≤ 2.0 MB gzipped. Prints markdown tables and writes benches/out/playground.json. Timings are
// reported, never asserted.
//
//   benches/playground.sh          (checks what it needs, then runs this)
//   TORCH_PYTHON=/path/to/venv/bin/python RUNS=5 node benches/playground.mjs
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { makeServer } from '../scripts/serve.mjs';
import { CHROMIUM_ARGS } from '../tests/browser/harness.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.RUNS || 5);
const PYTHON = process.env.TORCH_PYTHON || 'python3';
const TARGET = 0.99;
const LIMIT_MS = 90_000;
const BUDGET = { seconds: 20, worstSeconds: 30, page: 0.5, native: 1.0, gzipBytes: 2.0e6 };

// The bench's own page and worker, served at /pgbench/ (the page's CSP allows no inline script).
const PAGE = `<!doctype html><meta charset="utf-8"><title>playground bench</title>
<script type="module" src="bench.js"></script>`;
const WORKER = `import init, { Playground } from '/pkg/train/attnscope.js';
const ready = init({ module_or_path: '/pkg/train/attnscope_bg.wasm' });
const now = () => performance.now();
self.onmessage = async ({ data: { seed, batchSize, warmup, window, windows } }) => {
  await ready;
  const run = new Playground(JSON.stringify({ task: 'reverse', seed, batchSize, steps: 1500 }));
  await run.step(warmup);
  const rates = [];
  for (let i = 0; i < windows; i++) {
    const t = now();
    await run.step(window);
    rates.push((window * 1000) / (now() - t));
  }
  let t = now();
  await run.evaluate();
  const evaluateMs = now() - t;
  t = now();
  await run.modelFolder();
  const folderMs = now() - t;
  run.free();
  self.postMessage({ rates, evaluateMs, folderMs });
};`;
const BENCH = `import { createTrainingClient } from '/playground/client.js';
const now = () => performance.now();

/** Train seed \`seed\` through the page's worker until greedy exact match ≥ target. */
async function timeToTarget(seed, target, limitMs) {
  const rates = [], evaluations = [];
  let t0 = 0, finish;
  const finished = new Promise((resolve) => (finish = resolve));
  const client = createTrainingClient({
    onNotice(notice) {
      const at = now() - t0;
      if (notice.type === 'reports' && notice.stepsPerSecond != null) rates.push(notice.stepsPerSecond);
      if (notice.type === 'evaluation') {
        const { step, exactMatch } = notice.evaluation;
        evaluations.push({ at, step, exactMatch });
        if (exactMatch >= target) finish({ at, step });
      }
      if (notice.type === 'state' && ['done', 'diverged'].includes(notice.state)) finish(null);
    },
    onLost: (reason) => finish({ lost: reason }),
  });
  let t = now();
  await client.facts();
  const loadMs = now() - t;
  t0 = now();
  await client.start({ task: 'reverse', seed });
  const startMs = now() - t0;
  const training = client.train().catch(() => {});
  const timer = setTimeout(() => finish(null), limitMs);
  const hit = await finished;
  clearTimeout(timer);
  await client.pause().catch(() => {});
  await training;
  client.close();
  return { loadMs, startMs, hit, evaluations, rates };
}

/** The module's steps alone, in a worker of the bench's own. */
function rawRate(options) {
  const worker = new Worker('/pgbench/worker.js', { type: 'module' });
  return new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => { worker.terminate(); resolve(data); };
    worker.onerror = (event) => { worker.terminate(); reject(new Error(event.message)); };
    worker.postMessage(options);
  });
}

window.bench = { timeToTarget, rawRate };
document.body.dataset.ready = 'true';`;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const spread = (xs) => `${Math.min(...xs).toFixed(2)}–${Math.max(...xs).toFixed(2)}`;

function torch(batch, steps) {
  const args = ['benches/playground_torch.py', '--batch', `${batch}`, '--steps', `${steps}`];
  return JSON.parse(
    execFileSync(PYTHON, args, { cwd: root, encoding: 'utf8', env: { ...process.env, OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' } }),
  );
}

function native(seed, batch, steps) {
  const args = ['playground', '--task', 'reverse', '--seed', `${seed}`, '--batch-size', `${batch}`];
  args.push('--steps', `${steps}`, '--eval-every', `${steps}`, '--json');
  const out = execFileSync(join(root, 'target/release/attnscope'), args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 28 });
  const curve = JSON.parse(out);
  return { parameters: curve.parameters, stepsPerSecond: curve.stepsPerSecond, exactMatch: curve.evaluations.at(-1).exactMatch };
}

async function page(browser, origin, seed) {
  const tab = await browser.newPage();
  try {
    await tab.goto(`${origin}/pgbench/index.html`);
    await tab.waitForFunction(() => document.body?.dataset.ready === 'true');
    const trained = await tab.evaluate(([s, t, l]) => window.bench.timeToTarget(s, t, l), [seed, TARGET, LIMIT_MS]);
    const raw = await tab.evaluate((s) => window.bench.rawRate({ seed: s, batchSize: 32, warmup: 20, window: 100, windows: 5 }), seed);
    const one = await tab.evaluate((s) => window.bench.rawRate({ seed: s, batchSize: 1, warmup: 20, window: 100, windows: 3 }), seed);
    return {
      seconds: trained.hit?.at != null ? trained.hit.at / 1000 : null,
      step: trained.hit?.step ?? null,
      startMs: trained.startMs,
      loadMs: trained.loadMs,
      evaluations: trained.evaluations,
      noticeRate: trained.rates.length ? median(trained.rates) : null,
      rawRate: median(raw.rates),
      evaluateMs: raw.evaluateMs,
      folderMs: raw.folderMs,
      batch1Rate: median(one.rates),
    };
  } finally {
    await tab.close();
  }
}

const wasm = join(root, 'pkg/train/attnscope_bg.wasm');
// As `gzip -9 -c pkg/train/attnscope_bg.wasm | wc -c`.
const sizes = { bytes: readFileSync(wasm).length, gzipped: execFileSync('gzip', ['-9', '-c', wasm], { maxBuffer: 1 << 28 }).length };
const dir = mkdtempSync(join(tmpdir(), 'attnscope-pgbench-'));
writeFileSync(join(dir, 'index.html'), PAGE);
writeFileSync(join(dir, 'bench.js'), BENCH);
writeFileSync(join(dir, 'worker.js'), WORKER);
const server = makeServer([['/pgbench/', dir]]);
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: CHROMIUM_ARGS });
const results = { date: new Date().toISOString(), chromium: browser.version(), sizes, runs: [] };
try {
  for (let run = 1; run <= RUNS; run++) {
    const record = { run, seed: run };
    const engines = {
      torch: () => {
        record.torch = torch(32, 1000);
        record.torch1 = torch(1, 300);
      },
      native: () => {
        record.native = native(run, 32, 1500);
        record.native1 = native(run, 1, 300);
      },
      page: async () => {
        record.page = await page(browser, origin, run);
      },
    };
    const order = ['torch', 'native', 'page'];
    for (let i = 0; i < order.length; i++) await engines[order[(run - 1 + i) % order.length]]();
    results.runs.push(record);
    const r = record;
    console.error(
      `run ${run}: torch ${r.torch.stepsPerSecond.toFixed(1)}/s, native ${r.native.stepsPerSecond.toFixed(1)}/s, page ${r.page.noticeRate?.toFixed(1)}/s (steps alone ${r.page.rawRate.toFixed(1)}), ≥ 99 % at ${r.page.seconds?.toFixed(1)} s (step ${r.page.step})`,
    );
  }
} finally {
  await browser.close();
  server.close();
  rmSync(dir, { recursive: true, force: true });
}
mkdirSync(join(root, 'benches/out'), { recursive: true });
writeFileSync(join(root, 'benches/out/playground.json'), `${JSON.stringify(results, null, 1)}\n`);
console.log(summary(results));

/** Markdown: the budget rows and the per-run figures. */
function summary({ runs, sizes, date, chromium: version }) {
  const col = (f) => runs.map(f);
  const torchRate = col((r) => r.torch.stepsPerSecond);
  const nativeRate = col((r) => r.native.stepsPerSecond);
  const pageRate = col((r) => r.page.noticeRate);
  const rawRate = col((r) => r.page.rawRate);
  const seconds = col((r) => r.page.seconds ?? Number.POSITIVE_INFINITY);
  const ratio = (xs) => xs.map((x, i) => x / torchRate[i]);
  // Met: the median meets the budget and no run is worse than 1.1× the budget.
  const atLeast = (xs, budget) => (median(xs) >= budget && Math.min(...xs) >= budget / 1.1 ? 'met' : 'missed');
  const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : 'not reached');
  const rows = [
    `| budget | median | min–max over ${runs.length} runs | |`,
    '|---|---|---|---|',
    `| reverse: ≥ 99 % held-out greedy exact match within 20 s of Train (page, seeds 1–${runs.length}), no seed over 30 s | ${f1(median(seconds))} s | ${seconds.map(f1).join(', ')} s | ${median(seconds) <= BUDGET.seconds && Math.max(...seconds) <= BUDGET.worstSeconds ? 'met' : 'missed'} |`,
    `| page's training (the worker's notices) ≥ 0.5× PyTorch's steps/s | ${median(pageRate).toFixed(1)} against ${median(torchRate).toFixed(1)} steps/s: **${median(ratio(pageRate)).toFixed(2)}×** | ${spread(ratio(pageRate))}× | ${atLeast(ratio(pageRate), BUDGET.page)} |`,
    `| … the module's steps alone (Playground.step in a worker) | ${median(rawRate).toFixed(1)} steps/s: ${median(ratio(rawRate)).toFixed(2)}× | ${spread(ratio(rawRate))}× | ${atLeast(ratio(rawRate), BUDGET.page)} |`,
    `| native CLI ≥ 1.0× PyTorch's steps/s | ${median(nativeRate).toFixed(1)} steps/s: **${median(ratio(nativeRate)).toFixed(2)}×** | ${spread(ratio(nativeRate))}× | ${atLeast(ratio(nativeRate), BUDGET.native)} |`,
    `| training module ≤ 2.0 MB gzipped | ${(sizes.gzipped / 1e6).toFixed(2)} MB (${sizes.bytes.toLocaleString('en')} bytes raw) | – | ${sizes.gzipped <= BUDGET.gzipBytes ? 'met' : 'missed'} |`,
  ];
  const perRun = [
    '',
    `${date.slice(0, 10)}, Chromium ${version}, ${runs[0].torch.engine}; parameters: PyTorch ${runs[0].torch.parameters}, attnscope ${runs[0].native.parameters}.`,
    '',
    '| run (seed) | PyTorch steps/s | native | page (notices) | page (steps alone) | ≥ 99 % at (s, step) | start (ms) | evaluate / modelFolder (ms) | ms a step at batch 1: PyTorch / native / page |',
    '|---|---|---|---|---|---|---|---|---|',
    ...runs.map(
      (r) =>
        `| ${r.run} | ${r.torch.stepsPerSecond.toFixed(1)} | ${r.native.stepsPerSecond.toFixed(1)} | ${r.page.noticeRate?.toFixed(1)} | ${r.page.rawRate.toFixed(1)} | ${f1(r.page.seconds)} (${r.page.step}) | ${r.page.startMs.toFixed(0)} | ${r.page.evaluateMs.toFixed(0)} / ${r.page.folderMs.toFixed(0)} | ${(1000 / r.torch1.stepsPerSecond).toFixed(2)} / ${(1000 / r.native1.stepsPerSecond).toFixed(2)} / ${(1000 / r.page.batch1Rate).toFixed(2)} |`,
    ),
    '',
    `PyTorch's mean step at batch 32 (ms): ${Object.entries(runs[0].torch.msPerStep)
      .map(([k, v]) => `${k} ${v.toFixed(2)}`)
      .join(', ')}.`,
  ];
  return [...rows, ...perRun].join('\n');
}
