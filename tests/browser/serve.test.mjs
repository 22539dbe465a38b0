// The page before the WebGPU module is built: scripts/serve.sh opens it as soon as the CPU module
// is ready and builds the WebGPU module afterwards. Asked for WebGPU, the page says the module is
// still being built and answers on the CPU; once pkg/manifest.json lists the module, the page
// switches to WebGPU by itself and shows the same translation.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { servePage, shownOutput, waitBackend, waitMessage, waitOutput, waitReady, withPage } from './harness.mjs';

const site = servePage();

const showsApples = () => document.body.dataset.output === '我爱吃苹果。';

test('before the WebGPU module is built, the CPU answers and says so; once it is, the page switches to it', { timeout: 240_000 }, () =>
  withPage(site.origin, '?backend=cpu', async ({ context, page, consoleErrors }) => {
    await waitReady(page);
    await waitOutput(page, showsApples);
    // The manifest as serve.sh writes it between the two builds: the CPU module only.
    const withoutWebGpu = async (route) => {
      const response = await route.fetch();
      const manifest = await response.json();
      assert.ok(manifest.webgpu, 'the real manifest lists the WebGPU module');
      delete manifest.webgpu;
      await route.fulfill({ response, json: manifest });
    };
    await context.route('**/pkg/manifest.json', withoutWebGpu);
    await page.selectOption('#backend-select', 'webgpu');
    await waitMessage(page, /WebGPU module is still being built/);
    assert.equal(await page.locator('#backend-badge').getAttribute('data-backend'), 'cpu');
    assert.equal(await shownOutput(page), '我爱吃苹果。', 'the CPU still answers');

    // The module appears: within a few seconds the page warms it up and switches.
    await context.unroute('**/pkg/manifest.json', withoutWebGpu);
    await waitBackend(page, 'webgpu', 180_000);
    await waitOutput(page, showsApples);
    const answer = await page.evaluate(() => window.__attnscope.call('answer'));
    assert.equal(answer.backend, 'webgpu');
    assert.deepEqual(consoleErrors, []);
  }),
);
