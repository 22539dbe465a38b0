// A worker that dies (a trapped wasm instance, an uncaught error: app/client.js) does not leave a
// dead page: a new worker loads the model that was working, with the same backend preference (a
// folder opened from the computer: the same File objects, which the page keeps), and the page
// comes back to what it showed; then it says what happened.
//
// What the page showed lives in one place already: its link (app/links.js), written after every
// answer shown, every step and every head looked at: the sentence, the decoding, the forced tokens
// and steps, the focused head, the heads switched off. The worker's own log of the sentence died
// with it; the link is read back as a link opened in another tab would be (applyLink), so the same
// code restores both, and it describes what worked: a request the worker died on (a sentence that
// traps) is not in it, and is not tried again. The training snapshot in use is not in a link; it is
// picked again after.
//
// A model that kills every worker it is loaded in must not make the page restart forever: after
// MAX_FAILED_RESTARTS restarts in a row that fail (the new worker dies too, or the model does not
// load), the page says so and stops.

import { $ } from '../ui/dom.js';
import { t } from '../ui/i18n.js';
import { applyLink, flushLink } from './links.js';
import { showMessage } from './messages.js';
import { modelTitle, pickSnapshot } from './models.js';
import { parts, state } from './store.js';

/** Restarts that may fail in a row before the page stops trying. */
export const MAX_FAILED_RESTARTS = 2;

const recovery = {
  running: false, // a restart is under way
  died: null, // why a worker died while a restart was under way (the restart failed), or null
};

/** The worker in use died of `reason` (app/client.js onDeath): start another, unless one is starting. */
export function recover(reason) {
  if (recovery.running) {
    recovery.died = reason;
    return;
  }
  if (!state.model) return;
  recovery.running = true;
  restartUntilBack(reason).finally(() => {
    recovery.running = false;
  });
}

/** Restart until the page is back, or MAX_FAILED_RESTARTS restarts in a row have failed. */
async function restartUntilBack(firstReason) {
  // What worked, taken before a restart changes anything.
  flushLink();
  const working = { model: state.model, link: location.hash, snapshot: state.timeline ? state.snapshot : null };
  const model = modelTitle(working.model);
  let reason = firstReason;
  // The requests the dead worker owed say their piece first; this message follows them.
  await new Promise((resolve) => setTimeout(resolve));
  for (let failed = 0; ; failed++) {
    if (failed === MAX_FAILED_RESTARTS) {
      showMessage(t('recovery.gaveUp', { error: reason, model, count: failed }));
      return;
    }
    showMessage(t('recovery.restarting', { error: reason, model }), 'info');
    recovery.died = null;
    const outcome = await restart(working);
    if (outcome === 'superseded') return; // another model was chosen meanwhile: the page is about it
    if (outcome === 'back' && recovery.died == null) {
      showMessage(t('recovery.restored', { error: firstReason, model }), 'info');
      return;
    }
    reason = recovery.died ?? reason;
  }
}

/**
 * Load `working.model` in a new worker and apply `working.link`, then pick its snapshot again.
 * Resolves to 'back', 'failed' (the worker died or the model did not load) or 'superseded'.
 */
async function restart(working) {
  const { client } = parts;
  client.retire(client.inUse());
  const worker = client.spawn();
  const ticket = state.bootTicket + 1; // the ticket the link's model load takes (app/models.js boot)
  const first = { model: working.model, backend: $('backend-select').value, worker };
  await applyLink(working.link, { first });
  if (state.bootTicket !== ticket) return 'superseded';
  if (client.inUse() !== worker) return 'failed';
  if (working.snapshot != null && working.snapshot !== state.snapshot) await pickSnapshot(working.snapshot);
  return client.inUse() === worker ? 'back' : 'failed';
}
