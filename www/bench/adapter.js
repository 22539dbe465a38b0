// The WebGPU adapter the browser gives, as the benchmark reports it: { adapter: { vendor,
// architecture, description, device, fallback } } or { adapter: null, reason } (why there is
// none). The page asks at once, to show it; the worker asks again, for the engines it runs.
import { attempt } from './problem.js';

export async function webgpuAdapter() {
  if (!globalThis.navigator?.gpu) return { adapter: null, reason: { key: 'noGpuApi' } };
  const found = await attempt(navigator.gpu.requestAdapter());
  if (found.reason) return { adapter: null, reason: found.reason };
  if (!found.value) return { adapter: null, reason: { key: 'noAdapter' } };
  const info = found.value.info ?? {};
  const { vendor = '', architecture = '', description = '', device = '' } = info;
  const fallback = Boolean(info.isFallbackAdapter ?? found.value.isFallbackAdapter);
  return { adapter: { vendor, architecture, description, device, fallback } };
}
