// Colour maps for the heatmaps: value → RGB through a 256-entry table (built once).
import { VIRIDIS, MAGMA, RDBU } from './vendor/colormaps.js';

export const MAPS = { viridis: VIRIDIS, magma: MAGMA, rdbu: RDBU };

/** RGB of `value` on `map`, scaled from [min, max]. NaN/∞ give a neutral grey. */
export function colour(value, map = 'viridis', min = 0, max = 1) {
  const table = MAPS[map] || VIRIDIS;
  if (!Number.isFinite(value)) return [90, 90, 90];
  const span = max - min || 1;
  const t = Math.min(1, Math.max(0, (value - min) / span));
  const i = Math.round(t * 255) * 3;
  return [table[i], table[i + 1], table[i + 2]];
}

/** A symmetric range around zero covering every finite value (for diverging maps). */
export function symmetricRange(values, mask) {
  let m = 0;
  for (let i = 0; i < values.length; i++) {
    if (mask && mask[i]) continue;
    const v = Math.abs(values[i]);
    if (Number.isFinite(v) && v > m) m = v;
  }
  return [-(m || 1), m || 1];
}
