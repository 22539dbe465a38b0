// Training on WebGPU (pkg/train-webgpu, docs/playground.md "Which backend trains"): the baseline
// reverse run (seed 1) started on WebGPU (SwiftShader here) and on the CPU through the page's
// training client (www/playground/client.js) starts from the same weights, so its first STEPS
// losses agree within TOLERANCE (relative); its held-out evaluation runs on WebGPU (every readback
// async); the WebGPU module is fetched for the WebGPU run; and a run started without a backend
// trains on the CPU where the page's backend menu is absent or at 'auto'; where WebGPU cannot
// start, a WebGPU run trains on the CPU, with the reason. SwiftShader emulates the GPU
// on the CPU: this is a correctness check, not a timing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHROMIUM_ARGS, servePage, withBrowser } from './harness.mjs';

const site = servePage();
/** Steps taken on each backend. */
const STEPS = 5;
/** The largest relative difference allowed between a WebGPU loss and the CPU's (measured: see docs/playground.md). */
const TOLERANCE = 1e-4;

/** In a page of the origin: both runs through the training client, their reports and evaluations. */
function trainBoth() {
  return async (n) => {
    const { createTrainingClient } = await import('/playground/client.js');
    const notices = [];
    let lost = null;
    const onNotice = (notice) => notices.push({ ...notice, at: performance.now() });
    const client = createTrainingClient({ onNotice, onLost: (why) => (lost = why) });
    const losses = () => notices.filter((x) => x.type === 'reports').flatMap((x) => x.reports.map((r) => r.loss));
    const evaluations = () => notices.filter((x) => x.type === 'evaluation').map((x) => x.evaluation);
    const runOn = async (backend) => {
      notices.length = 0;
      const t0 = performance.now();
      const info = await client.start({ seed: 1 }, backend);
      const started = performance.now();
      // The step call evaluates on the held-out pairs and snapshots after the steps; an evaluation
      // asked for apart (client.evaluate) runs the same code, and on SwiftShader takes ~30 s more.
      await client.step(n);
      const stepped = performance.now();
      // The steps alone: until their reports came.
      const reported = notices.find((x) => x.type === 'reports').at;
      const evaluated = notices.find((x) => x.type === 'evaluation')?.at ?? Number.NaN;
      return {
        info,
        losses: losses(),
        evaluations: evaluations(),
        ms: {
          start: started - t0,
          steps: reported - started,
          evaluate: evaluated - reported,
          stepCall: stepped - started,
        },
      };
    };
    try {
      const webgpu = await runOn('webgpu');
      const cpu = await runOn('cpu');
      const byDefault = (await client.start({ seed: 1 })).backend;
      // The page's backend menu at 'auto' trains on the CPU too.
      const menu = document.createElement('select');
      menu.id = 'backend-select';
      menu.append(new Option('auto', 'auto', true, true));
      document.body.append(menu);
      const onAuto = (await client.start({ seed: 1 })).backend;
      return { webgpu, cpu, byDefault, onAuto, lost };
    } finally {
      client.close();
    }
  };
}

test('training on WebGPU matches the CPU from the same weights', { timeout: 600_000 }, () =>
  withBrowser(async (browser) => {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    const fetched = [];
    page.on('request', (request) => fetched.push(new URL(request.url()).pathname));
    // A document of the origin that loads nothing itself: the test drives the training client alone.
    await page.goto(`${site.origin}/style.css`);
    const t0 = Date.now();
    const { webgpu, cpu, byDefault, onAuto, lost } = await page.evaluate(trainBoth(), STEPS);
    const seconds = (Date.now() - t0) / 1000;
    console.log(
      `webgpu ${JSON.stringify(webgpu.ms)} losses ${webgpu.losses}\ncpu ${JSON.stringify(cpu.ms)} losses ${cpu.losses}\n${seconds} s`,
    );
    assert.equal(lost, null);
    assert.deepEqual(errors, []);
    assert.equal(webgpu.info.backend, 'webgpu', JSON.stringify(webgpu.info.fallback));
    assert.equal(webgpu.info.fallback, null);
    assert.equal(cpu.info.backend, 'cpu');
    assert.equal(byDefault, 'cpu');
    assert.equal(onAuto, 'cpu');
    assert.equal(webgpu.info.parameters, cpu.info.parameters);
    assert.equal(webgpu.losses.length, STEPS);
    assert.equal(cpu.losses.length, STEPS);
    const worst = Math.max(...webgpu.losses.map((loss, i) => Math.abs(loss - cpu.losses[i]) / Math.abs(cpu.losses[i])));
    console.log(`largest relative loss difference over ${STEPS} steps: ${worst}`);
    assert.ok(worst <= TOLERANCE, `losses differ by ${worst} (relative): ${webgpu.losses} vs ${cpu.losses}`);
    // The held-out evaluation ran once on each backend, at step STEPS, after the steps.
    assert.deepEqual(
      webgpu.evaluations.map((e) => e.step),
      [STEPS],
    );
    assert.deepEqual(
      cpu.evaluations.map((e) => e.step),
      [STEPS],
    );
    const [onGpu] = webgpu.evaluations;
    const [onCpu] = cpu.evaluations;
    assert.ok(Number.isFinite(onGpu.heldoutLoss), JSON.stringify(onGpu));
    assert.ok(
      Math.abs(onGpu.heldoutLoss - onCpu.heldoutLoss) <= TOLERANCE * Math.abs(onCpu.heldoutLoss),
      `held-out loss ${onGpu.heldoutLoss} vs ${onCpu.heldoutLoss}`,
    );
    assert.equal(onGpu.total, onCpu.total);
    // pkg/train-webgpu was fetched (for the WebGPU run only: the CPU runs use pkg/train).
    assert.ok(fetched.includes('/pkg/train-webgpu/attnscope_bg.wasm'), fetched.join('\n'));
  }),
);

test('where WebGPU cannot start, the run trains on the CPU and says why', { timeout: 120_000 }, () =>
  withBrowser(
    async (browser) => {
      const page = await browser.newPage();
      await page.goto(`${site.origin}/style.css`);
      const info = await page.evaluate(async () => {
        const { createTrainingClient } = await import('/playground/client.js');
        const client = createTrainingClient({ onNotice: () => {}, onLost: () => {} });
        try {
          return await client.start({ seed: 1 }, 'webgpu');
        } finally {
          client.close();
        }
      });
      assert.equal(info.backend, 'cpu');
      assert.equal(info.fallback?.key, 'error.webGpuUnavailable', JSON.stringify(info.fallback));
    },
    CHROMIUM_ARGS.filter((arg) => arg !== '--enable-unsafe-webgpu'),
  ),
);
