// Timing helpers the page benches share (translate.mjs, big-model.mjs, browser.mjs, first-heatmap.mjs).
import { CHROMIUM_ARGS, SWIFTSHADER_GPU_ARGS } from '../tests/browser/harness.mjs';

/**
 * Chromium's flags for a page bench: the tests' (WebGPU on SwiftShader, which also composites the
 * page through SwiftShader's GL on the CPU), or with `BROWSER=plain` in the environment, without
 * the three that force it. The CPU module needs no GPU. With the tests' flags, Chromium's GPU
 * process ran tasks for 657–801 ms of a 781–941 ms warm reload (benches/threads.mjs), on a 2-core
 * host where the page's two threads need the cores too; without them, 13 ms (benches/RESULTS.md,
 * eighth session).
 */
export const BENCH_ARGS =
  process.env.BROWSER === 'plain' ? CHROMIUM_ARGS.filter((arg) => !SWIFTSHADER_GPU_ARGS.includes(arg)) : CHROMIUM_ARGS;

/**
 * Translate `text` through the page's worker call 3 times to warm up, then `runs` times; the
 * times of the timed runs (ms), sorted. Each call carries a generation of its own, far above the
 * page's, so none is dropped as outdated.
 */
export function timeTranslations(page, text, runs) {
  return page.evaluate(
    async ({ text, runs }) => {
      const out = [];
      for (let i = 0; i < runs + 3; i++) {
        const started = performance.now();
        await window.__attnscope.call('translate', { gen: 2e9 + i, text });
        if (i >= 3) out.push(performance.now() - started);
      }
      return out.sort((a, b) => a - b);
    },
    { text, runs },
  );
}

/** The median and the 95th percentile of sorted `times`. */
export function medianP95(times) {
  return { median: times[Math.floor(times.length / 2)], p95: times[Math.min(times.length - 1, Math.ceil(times.length * 0.95) - 1)] };
}

/**
 * When the page drew the loaded model's first heatmap, in ms from its navigation start: the page's
 * `first heatmap` user-timing mark (www/app/actions.js), which any page load has (no test mode needed).
 */
export async function firstHeatmap(page, timeout = 120_000) {
  await page.waitForFunction(() => performance.getEntriesByName('first heatmap', 'mark').length > 0, null, { timeout });
  return page.evaluate(() => performance.getEntriesByName('first heatmap', 'mark')[0].startTime);
}
