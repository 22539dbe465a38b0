// The shown answer's summaries: the mean and max over heads and the rollouts (www/shared/wire.js
// analysis). A live answer comes without them: the worker sends them right after it
// (www/worker/backends.js sendAnalysis), so that the first heatmap is drawn without waiting for
// them or for their bytes to cross; the views that draw them wait (app/render.js drawAll). A
// recording's answer and a saved file's carry their own.

import { state } from './store.js';

const due = { seq: null, waiters: [] }; // the summaries the shown answer waits for, and who waits
let early = null; // { seq, analysis } that came before its answer was shown

function settle() {
  due.seq = null;
  for (const resolve of due.waiters.splice(0)) resolve();
}

/** The page shows `answer` now: its summaries are in it, or due (its `analysisSeq` names them). */
export function expectSummaries(answer) {
  // Whoever waited for the previous answer's draws a stale answer: let it end.
  settle();
  state.analysis = answer.analysis ?? null;
  // A notice kept for an answer never shown (a stale one, another worker's) must not be taken.
  const kept = early;
  early = null;
  if (state.analysis || answer.analysisSeq == null) return;
  if (kept?.seq === answer.analysisSeq) {
    state.analysis = kept.analysis;
    return;
  }
  due.seq = answer.analysisSeq;
}

/** The worker's notice { seq, analysis } (analysis null when it could not make them). */
export function takeSummaries({ seq, analysis }) {
  if (seq !== due.seq) {
    early = { seq, analysis };
    return;
  }
  state.analysis = analysis;
  settle();
}

/** Resolves once the shown answer's summaries are in (at once when none are due). */
export function summariesIn() {
  return due.seq == null ? Promise.resolve() : new Promise((resolve) => due.waiters.push(resolve));
}
