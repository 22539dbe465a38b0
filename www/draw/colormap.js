// Colour maps for the heatmaps: 256-entry RGB tables, built once (see scripts/build-colormaps.mjs).
import { RDBU, VIRIDIS } from './vendor/colormaps.js';

export const MAPS = { viridis: VIRIDIS, rdbu: RDBU };

/** A symmetric range around zero covering every finite value (for diverging maps). */
export function symmetricRange(values, mask) {
  let m = 0;
  for (let i = 0; i < values.length; i++) {
    if (mask?.[i]) continue;
    const v = Math.abs(values[i]);
    if (Number.isFinite(v) && v > m) m = v;
  }
  return [-(m || 1), m || 1];
}
