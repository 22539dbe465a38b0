// Which session answers: the CPU/WebGPU state machine, in one place.
//
// The CPU session answers first. When the module's chooseBackend picks WebGPU for the page's
// preference, a WebGPU session warms up beside it (shader compilation on a real sentence) and
// takes over when ready, after replaying the sentence. If WebGPU fails or its device is lost, the
// CPU replays the current sentence and answers from then on, and the page is told why.
//
// States of `gpuState`, and what moves between them:
//   off ──startGpu──▶ warming ──(warm-up done, replayed)──▶ ready
//   warming ──(no adapter, a failure)──▶ dead;  ready ──(failure, device lost)──▶ dead
//   warming ──(the module is not built yet)──▶ dead, looking for it every few seconds ──▶ warming
//   any ──setPreference('cpu')──▶ off;  off / dead (asked for WebGPU again) ──▶ warming
// Notes to the page are { key, params } of www/ui/i18n/*.json.
import * as wire from '../shared/wire.js';
import { moduleListed } from './cache.js';
import { watchGpuDevices } from './gpu.js';
import { beat, errorText, post, send } from './messages.js';
import { createSession } from './model.js';
import { chooseBackend, facts } from './modules.js';
import { enqueue } from './queue.js';
import { recordedAnswer, recordingStep } from './recording.js';
import { configure, currentText, replay, sentence } from './sentence.js';

const backends = {
  preference: 'auto', // what the page asked for: one of the module's backends() ('auto' | 'cpu' | 'webgpu')
  cpu: null, // the CPU session
  gpu: null, // the WebGPU session, set only while gpuState is 'ready'
  gpuState: 'off', // 'off' | 'warming' | 'ready' | 'dead'
  warmup: 0, // the latest warm-up's ticket: an older one never takes over
  needsReplay: false, // the CPU must replay the sentence before it answers anything
};

/** The session that answers now. */
export const currentSession = () => (backends.gpuState === 'ready' ? backends.gpu : backends.cpu);

/** The CPU session (there is one whenever a model is loaded). */
export const cpuSession = () => backends.cpu;

/** Every session there is (the CPU's, and WebGPU's while it is ready). */
export const sessions = () => [backends.cpu, backends.gpu].filter(Boolean);

/** Which backend answers now: 'webgpu' or 'cpu'. */
export const backendName = () => (backends.gpuState === 'ready' ? 'webgpu' : 'cpu');

/** Whether a model is loaded. */
export const hasModel = () => backends.cpu != null;

/** Free a session; a trapped or busy one may refuse, and is dropped either way. */
export function free(session) {
  try {
    session?.free();
  } catch {
    // Dropped either way.
  }
}

function dropGpu(state) {
  free(backends.gpu);
  backends.gpu = null;
  backends.gpuState = state;
  backends.warmup += 1;
}

/** The summaries a live answer leaves to come after it: { seq, session } or null (sendAnalysis). */
let analysisDue = null;
let analysisSeq = 0;

/**
 * What the page gets for an Answer: the decoded trace and stages, and who computed them. A live
 * session's answer comes without its summaries: they follow it (`analysisSeq` names them), once
 * it has been sent, from `session` (the one that answered). A recording's answer carries its own.
 */
export function reply(answer, extra = {}, session = currentSession()) {
  const shown = { ...wire.answer(answer), backend: backendName(), ...extra };
  if (!shown.analysis) {
    shown.analysisSeq = ++analysisSeq;
    analysisDue = { seq: analysisSeq, session };
  }
  return shown;
}

/**
 * Send the summaries of the answer just sent ({ type: 'analysis', seq, analysis }; analysis null
 * and `error` when they could not be made), if it left any to come. Returns the error, if any
 * (a trap stops the worker: www/worker/requests.js).
 */
export function sendAnalysis() {
  const due = analysisDue;
  analysisDue = null;
  if (!due) return null;
  try {
    send({ type: 'analysis', seq: due.seq, analysis: wire.analysis(due.session.analysis()) });
    return null;
  } catch (error) {
    post({ type: 'analysis', seq: due.seq, analysis: null, error: errorText(error) });
    return error;
  }
}

/**
 * The page's answer for the current sentence, `answer` being the session's. While a recorded
 * timeline snapshot is picked (www/worker/recording.js): the recording's answer (`recorded`: its
 * step), or when it did not record the sentence, the session's from the final weights
 * (`recordedMissing`: the step picked). Without a recording, `answer` as it is.
 */
export async function recordingReply(answer, session = currentSession()) {
  const step = recordingStep();
  if (step == null) return reply(answer, {}, session);
  const { defaultFocus } = await facts();
  const recorded = recordedAnswer(currentText(), sentence.focus, defaultFocus);
  return recorded ? reply(recorded, { recorded: step }, session) : reply(answer, { recordedMissing: step }, session);
}

/** Tell the page which backend answers, with a note ({ key, params }) or null. */
function announce(note = null) {
  const { preference, gpuState } = backends;
  post({ type: 'backend', backend: backendName(), preference, note, warming: gpuState === 'warming' });
}

/** A new model's CPU session, with the page's `preference`; WebGPU warms up on `text` unless it is 'cpu'. */
export function start(cpu, preference, text) {
  backends.preference = preference;
  backends.cpu = cpu;
  if (preference !== 'cpu') startGpu(text);
  announce();
}

/** Stop using WebGPU at once and say so; the CPU replays the sentence before its next answer. */
function switchToCpuNow(reason) {
  if (backends.gpuState === 'dead') return;
  if (backends.gpuState === 'ready') backends.needsReplay = true;
  dropGpu('dead');
  announce({ key: 'backend.stopped', params: { reason } });
}

/** Bring the CPU session to the current sentence if WebGPU was lost under it, and show it. */
export async function catchUp() {
  if (!backends.needsReplay) return;
  backends.needsReplay = false;
  const answer = await replay(backends.cpu);
  if (answer) send({ type: 'refresh', result: await recordingReply(answer, backends.cpu) });
  sendAnalysis();
}

/** A WebGPU device was lost (`info`: its GPUDeviceLostInfo): the CPU takes over the sentence. */
function onDeviceLost(info) {
  if (backends.gpuState !== 'ready') return;
  switchToCpuNow(`device lost: ${info?.reason || 'unknown'}${info?.message ? ` — ${info.message}` : ''}`);
  enqueue(() => catchUp().catch((error) => announce({ key: 'backend.takeoverFailed', params: { error: errorText(error) } })));
}

watchGpuDevices(onDeviceLost);

function startGpu(text) {
  backends.gpuState = 'warming';
  backends.warmup += 1;
  warmUpGpu(text, backends.warmup);
}

/** Why WebGPU is not used, for the preference that asked for it. */
function unavailable(preference, reason) {
  return { key: preference === 'webgpu' ? 'backend.webgpuNotAvailable' : 'backend.webgpuUnavailable', params: { reason } };
}

/** Ask the module which backend the preference means here; warm WebGPU up if it is that one. */
async function warmUpGpu(text, ticket) {
  const { preference } = backends;
  let session = null;
  try {
    const choice = await chooseBackend(preference);
    if (ticket !== backends.warmup) return;
    if (choice.backend !== 'webgpu') {
      // The note says why (no adapter, or only a software one for `auto`).
      backends.gpuState = 'dead';
      announce(choice.note || null);
      return;
    }
    if (!(await moduleListed('webgpu'))) {
      if (ticket !== backends.warmup) return;
      backends.gpuState = 'dead';
      announce({ key: 'backend.webgpuBuilding', params: {} });
      waitForModule(text, ticket);
      return;
    }
    session = await createSession('webgpu');
    beat();
    // Compile the shaders on a real sentence before this backend answers anyone.
    await session.translate(text || 'Hello.');
    beat();
  } catch (error) {
    free(session);
    if (ticket !== backends.warmup) return;
    backends.gpuState = 'dead';
    announce(unavailable(preference, errorText(error)));
    return;
  }
  enqueue(() => takeOver(session, ticket, preference));
}

/** How often to look for a WebGPU module that is still being built. */
const MODULE_POLL_MS = 5000;

/**
 * The WebGPU module is not built yet (scripts/serve.sh builds it after the page opens): look for it
 * every few seconds and warm it up once it is there, unless WebGPU was given up or asked for anew
 * meanwhile (a newer ticket).
 */
function waitForModule(text, ticket) {
  setTimeout(async () => {
    if (ticket !== backends.warmup) return;
    const listed = await moduleListed('webgpu').catch(() => false);
    if (ticket !== backends.warmup) return;
    if (!listed) {
      waitForModule(text, ticket);
      return;
    }
    startGpu(text);
    announce();
  }, MODULE_POLL_MS);
}

/** A warmed-up WebGPU `session` replays the sentence and answers from now on (unless a newer warm-up began). */
async function takeOver(session, ticket, preference) {
  if (ticket !== backends.warmup) {
    free(session);
    return;
  }
  try {
    const answer = await replay(configure(session));
    backends.gpu = session;
    backends.gpuState = 'ready';
    announce();
    if (answer) send({ type: 'refresh', result: await recordingReply(answer, session) });
    sendAnalysis();
  } catch (error) {
    free(session);
    backends.gpuState = 'dead';
    announce(unavailable(preference, errorText(error)));
  }
}

/** The page chose `preference`; WebGPU starts warming up, or stops, as it says. */
export async function setPreference(preference, text) {
  const previous = backends.preference;
  backends.preference = preference;
  const { gpuState } = backends;
  if (preference === 'cpu') {
    // The CPU session did not follow what WebGPU did.
    if (gpuState === 'ready') await replay(backends.cpu);
    dropGpu('off');
    announce();
  } else if (
    gpuState === 'off' ||
    (gpuState === 'dead' && preference === 'webgpu') ||
    // A warm-up asks chooseBackend about the preference it started with.
    (gpuState === 'warming' && preference !== previous)
  ) {
    startGpu(text);
    announce();
  } else {
    announce(backends.gpuState === 'dead' ? { key: 'backend.webgpuDead', params: {} } : null);
  }
}

/** Run `fn` on the session in use; if WebGPU fails under it, fall back to the CPU and retry. */
export async function withSession(fn) {
  const session = currentSession();
  try {
    return await fn(session);
  } catch (error) {
    if (session !== backends.gpu || backends.gpuState !== 'ready') throw error;
    switchToCpuNow(errorText(error));
    await catchUp();
    return fn(currentSession());
  }
}
