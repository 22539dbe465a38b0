// Which heads matter: the heads switched off and their report on the shown output, each head's
// importance for that output, and the model's heads.json (what each head does, over held-out
// sentences). The worker's own session is never changed: `ablate` decodes the output again with
// the heads off beside it (Session.ablate), and the comparison view asks its own session. A new
// model and a new answer are heard on the bus; a change of the heads off is announced there
// (`heads-off`).

import { announce, listen } from '../ui/bus.js';
import { headKey } from '../views/heads-text.js';
import { handleError } from './messages.js';
import { redraw, refresh } from './render.js';
import { call, measurable, state } from './store.js';

const requests = { ablation: 0, importance: 0 }; // the latest request's ticket: an older answer is dropped
const busy = state.headsBusy;

/** `KIND:LAYER:HEAD,…` for `heads` ([{ kind, layer, head }]), as the module reads it. */
export const headSpec = (heads) => heads.map(headKey).join(',');

/** What names the shown output and the weights that made it: a report or an importance of another is stale. */
const outputKey = (trace) => (trace ? `${state.snapshot}|${Array.from(trace.srcIds).join()}|${Array.from(trace.tgtIds).join()}` : '');

/** A new model has loaded (`info`: the worker's init answer): every head on, nothing measured, its heads.json. */
listen('model-loaded', ({ info }) => {
  state.headStudy = info.heads ?? null;
  state.ablation = { spec: '', heads: [], report: null };
  state.importance = null;
  requests.ablation += 1;
  requests.importance += 1;
  busy.ablating = false;
  busy.measuring = false;
});

/** A new answer is on the page: the report follows its output, an importance of another output is dropped. */
listen('answer-shown', () => {
  const key = outputKey(state.trace);
  if (state.importance && state.importance.key !== key) state.importance = null;
  if (state.ablation.spec && state.ablation.report?.key !== key) reportAblation();
});

/** The heads off are `spec` now: the comparison decodes without them too, and the bus hears it. */
function heardOff(spec) {
  refresh('compare');
  announce('heads-off', { spec });
}

/** Switch `head` ({ kind, layer, head }) off, or back on when it is off. */
export function toggleHead(head) {
  const { heads } = state.ablation;
  const key = headKey(head);
  const next = heads.some((h) => headKey(h) === key) ? heads.filter((h) => headKey(h) !== key) : [...heads, head];
  return switchOff(headSpec(next), next);
}

/** Switch every head back on. */
export const switchAllOn = () => switchOff('');

/**
 * Switch off the heads of `spec` (a link's; every other head on) and report on the shown output.
 * `heads`: the same heads, when the page knows them (a toggle); a link's are the module's to read.
 */
export async function switchOff(spec, heads = []) {
  state.ablation = { spec, heads, report: null };
  heardOff(spec);
  await reportAblation();
}

/** Ask the worker what the heads off change in the shown output (nothing to ask with every head on). */
async function reportAblation() {
  const ticket = ++requests.ablation;
  const { spec } = state.ablation;
  const key = outputKey(state.trace);
  busy.ablating = Boolean(spec) && measurable();
  showHeads();
  if (!busy.ablating) return;
  try {
    const report = await call('ablate', { spec, gen: state.shownGeneration });
    if (ticket !== requests.ablation || report.stale) return; // the next answer asks again
    state.ablation = { spec: report.spec, heads: report.heads, report: { ...report, key } };
    heardOff(report.spec);
  } catch (error) {
    if (ticket !== requests.ablation) return;
    // A link's head that is not one, or that this model lacks: said, and every head on again.
    handleError(error);
    state.ablation = { spec: '', heads: [], report: null };
    heardOff('');
  }
  busy.ablating = false;
  showHeads();
}

/** Measure each head's importance for the shown output (one teacher-forced pass per head). */
export async function measureImportance() {
  if (!measurable()) return;
  const ticket = ++requests.importance;
  const key = outputKey(state.trace);
  busy.measuring = true;
  showHeads();
  try {
    const measured = await call('importance', { gen: state.shownGeneration });
    if (ticket === requests.importance && !measured.stale) state.importance = { ...measured, key };
  } catch (error) {
    if (ticket === requests.importance) handleError(error);
  }
  if (ticket === requests.importance) busy.measuring = false;
  showHeads();
}

/** The Heads panel and the model view's marks, as the state says. */
const showHeads = () => redraw('heads');
