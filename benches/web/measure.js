// How the bench page times a stage (bench.js, onnx.js): samples after untimed warm-up runs, their
// median and p95. A call under a few milliseconds is timed in batches: performance.now() ticks in
// 0.1 ms steps here (the page is not cross-origin isolated), so one sample times enough calls to
// last MIN_SAMPLE_MS and answers their mean.

export const WARMUP = 3;
const MIN_SAMPLE_MS = 5;
export const now = () => performance.now();

export function stats(samples, calls = 1) {
  const s = [...samples].sort((a, b) => a - b);
  return { median: s[Math.floor((s.length - 1) / 2)], p95: s[Math.round((s.length - 1) * 0.95)], runs: s.length, calls };
}

/** `sample()` answers the milliseconds of one sample; `runs` of them after `warmup` untimed. */
export async function measure(sample, runs, warmup = WARMUP) {
  for (let i = 0; i < warmup; i++) await sample();
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await sample());
  return stats(samples);
}

/** A sample that times `fn` after an untimed `setup`. */
export const timed =
  (fn, setup = async () => {}) =>
  async () => {
    await setup();
    const t = now();
    await fn();
    return now() - t;
  };

/** How many calls of `fn` one sample times (enough to last MIN_SAMPLE_MS, as the last of
 * `warmup` untimed calls took). */
async function calibrate(fn, warmup) {
  let once = 0.05;
  for (let i = 0; i < Math.max(warmup, 1); i++) {
    const t = now();
    await fn();
    once = Math.max(now() - t, 0.05);
  }
  return Math.max(1, Math.ceil(MIN_SAMPLE_MS / once));
}

/** One sample: the mean ms of `calls` calls of `fn`. */
async function sampleOf(fn, calls) {
  const t0 = now();
  for (let c = 0; c < calls; c++) await fn();
  return (now() - t0) / calls;
}

/** `runs` samples of `fn` after `warmup` untimed calls, each sample the mean of enough calls
 * (`calls` in the answer) to last MIN_SAMPLE_MS, as the last warm-up call took. */
export async function measureCalls(fn, runs, warmup = WARMUP) {
  const calls = await calibrate(fn, warmup);
  const samples = [];
  for (let i = 0; i < runs; i++) samples.push(await sampleOf(fn, calls));
  return stats(samples, calls);
}

/**
 * [`measureCalls`] for several engines' calls that a ratio will divide: they take turns sample
 * by sample (one sample of each, then the next round), so a spell of the shared host's noise
 * (it lasts a stage or longer here: an engine's whole stage at 1.5× in one page load) falls on
 * all of them instead of on whichever was being timed. One answer per function, in order.
 */
export async function measureTurns(fns, runs, warmup = WARMUP) {
  const calls = [];
  for (const fn of fns) calls.push(await calibrate(fn, warmup));
  const samples = fns.map(() => []);
  for (let i = 0; i < runs; i++) {
    for (const [k, fn] of fns.entries()) samples[k].push(await sampleOf(fn, calls[k]));
  }
  return samples.map((s, k) => stats(s, calls[k]));
}

export const single = (ms) => ({ median: ms, p95: ms, runs: 1, calls: 1 });
