// What the page says: the message box, the loading bar and the backend badge, from the worker's
// notices (app/client.js) and the page's own errors.
import { $ } from '../ui/dom.js';
import { messageText, t } from '../ui/i18n.js';
import { state } from './store.js';

/** Show `text` in the message box ('' hides it); `kind` 'info' is not an error. */
export function showMessage(text, kind = 'error') {
  const box = $('message');
  delete box.dataset.note;
  box.textContent = text;
  box.className = `message ${kind === 'info' ? 'info' : ''}`;
  box.hidden = !text;
}

/**
 * What an answer says of a recorded timeline snapshot (www/worker/recording.js): a sentence it did
 * not record is the final model's, and the page says so; a recorded one takes that note away.
 */
export function noteRecording(result) {
  const box = $('message');
  if (result?.recordedMissing != null) {
    showMessage(t('timeline.onlyFinal', { step: result.recordedMissing }), 'info');
    box.dataset.note = 'recording';
  } else if (box.dataset.note === 'recording') {
    clearMessage();
  }
}

/** A model has loaded: what the page said about the previous one goes; the backend's news stays. */
export function clearMessageForModel() {
  if ($('message').dataset.note !== 'backend') clearMessage();
}

export function clearMessage() {
  showMessage('');
}

export function clearMessageUnlessInfo() {
  if (!$('message').classList.contains('info')) clearMessage();
}

/**
 * A download's progress: in the loading bar, or in the badge for the WebGPU module once the page
 * works. `phase: 'convert'`: a Hugging Face folder, read, is being converted; `phase: 'load'`: the
 * model's files are read and the module builds the model (no bytes to count in either).
 */
export function showProgress({ label, loaded, total, phase }) {
  if (state.config && /WebGPU/.test(label)) {
    // The page already works on the CPU: report the WebGPU module's download in the badge.
    $('backend-badge').textContent = t('backend.loadingWebgpu', { percent: total ? Math.round((100 * loaded) / total) : '…' });
    return;
  }
  $('loading').hidden = false;
  // Converting or building comes after every byte was read: the bar stays full.
  const fraction = phase ? 1 : total ? Math.min(1, loaded / total) : 0.5;
  $('progress-bar').style.width = `${Math.round(fraction * 100)}%`;
  const size = total ? t('loading.size', { loaded: (loaded / 1e6).toFixed(1), total: (total / 1e6).toFixed(1) }) : '';
  const phases = { convert: 'loading.converting', load: 'loading.building' };
  $('progress-text').textContent = phases[phase] ? t(phases[phase], { label }) : t('loading.progress', { label, size });
}

/** The worker's backend news: the badge, and its note ({ key, params } or null) as a message. */
export function showBackend({ backend, note, warming }) {
  state.backendNews = { backend, warming };
  state.backend = backend;
  const badge = $('backend-badge');
  badge.textContent = t(backend === 'webgpu' ? 'backend.webgpu' : warming ? 'backend.warming' : 'backend.cpu');
  badge.className = `badge ${backend}`;
  badge.dataset.backend = backend;
  if (note) {
    showMessage(messageText(note), 'info');
    $('message').dataset.note = 'backend';
  }
}

/** What a failed request says: its problem ({ key, params }) in the page's language, else its message. */
export const failureText = (error) => (error.problem ? messageText(error.problem) : error.message);

/**
 * A failed request: its message. A request the worker died on says nothing here: the client
 * restarts the worker (www/app/recovery.js), and its message says what happened.
 */
export function handleError(error) {
  if (error.workerLost) return;
  showMessage(failureText(error));
}
