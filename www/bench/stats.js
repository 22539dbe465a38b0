// Timing samples and what the table shows of them.

/** Milliseconds `fn()` takes (awaited). */
export async function timed(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** { median, min, max, runs } of `samples` (milliseconds); null when there are none. */
export function summary(samples) {
  if (!samples.length) return null;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
  return { median, min: sorted[0], max: sorted.at(-1), runs: sorted.length };
}

/** Milliseconds as the table writes them: three significant figures or so, no grouping. */
export function ms(value) {
  if (value == null || !Number.isFinite(value)) return '–';
  if (value < 10) return value.toFixed(2);
  if (value < 100) return value.toFixed(1);
  return value.toFixed(0);
}

/** A summary as one cell of text: "median (min–max)". */
export const spread = (s) => (s ? `${ms(s.median)} (${ms(s.min)}–${ms(s.max)})` : '–');
