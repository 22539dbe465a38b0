// The models: loading one in a fresh worker, the models opened from the person's computer, the
// padding demo, and the training timeline's snapshots.
//
// A model opened from the computer (app/open-model.js) joins the selector once it has loaded, for
// as long as the page is open. The page keeps its File objects, not its bytes: switching back to
// it reads them again, in the new model's worker. A model with a training timeline also offers its
// snapshots: picking one swaps the worker's weights, and the answer redraws every view as any
// other does. The bus hears `model-loaded` (the Heads panel and the target-language menu follow
// it).

import { announce } from '../ui/bus.js';
import { $, el, option } from '../ui/dom.js';
import { language, messageText, t } from '../ui/i18n.js';
import { clampSelection, showAnswer, translate } from './actions.js';
import { BEAM, decoding, samplingArgs } from './controls.js';
import { clearMessageForModel, clearMessageUnlessInfo, failureText, handleError, noteRecording, showMessage } from './messages.js';
import { markSnapshot, refresh, whenDrawn } from './render.js';
import { leaveSavedTrace } from './saved.js';
import { call, parts, state } from './store.js';
import { expectSummaries } from './summaries.js';

/** How a model opened from the person's computer is named, in the page and in a link. */
export const LOCAL_MODEL_PREFIX = 'local:';

/**
 * Load `model` in a worker (a fresh one unless `next` is given). The worker in use keeps running
 * until the new one has loaded, so a model that fails to load costs nothing already on screen.
 * Resolves to whether the page now shows `model`.
 */
export async function boot(backend = $('backend-select').value, model = state.model, next = parts.client.spawn()) {
  const { client } = parts;
  const ticket = ++state.bootTicket;
  if (!client.inUse()) $('loading').hidden = false;
  try {
    const text = $('source-input').value;
    // The sampling comes with the model: the first translation waits for no request of its own.
    const info = await timed('boot: init', () => client.call('init', { model, backend, text, sampling: samplingArgs() }, next));
    if (ticket !== state.bootTicket) {
      // A newer model choice superseded this one while it loaded.
      client.retire(next);
      return false;
    }
    client.adopt(next);
    await timed('boot: show the model', () => showModel(model, info));
    await timed('boot: translate and draw', translate);
    await loadPaddingDemo();
    return true;
  } catch (error) {
    client.retire(next);
    if (ticket !== state.bootTicket) return false;
    $('loading').hidden = true;
    if (state.model) $('model-select').value = state.model.name;
    showMessage(loadFailed(model, failureText(error)));
    return false;
  }
}

/**
 * `run()`, timed as a user-timing measure `name` (benches/first-heatmap.mjs reads them with the
 * worker's: what the first heatmap after a load is made of).
 */
export async function timed(name, run) {
  const start = performance.now();
  try {
    return await run();
  } finally {
    performance.measure(name, { start, end: performance.now() });
  }
}

/** `model` has loaded (`info`: the worker's answer to init): the page is about it now. */
function showModel(model, info) {
  if (model.local && !state.models.includes(model)) {
    addLocalModel(model, info.config);
    if (model.example) $('source-input').value = model.example;
  }
  if (state.model && model !== state.model) state.selection = { ...state.facts.defaultFocus };
  if (model.local) model.about = info.about ?? undefined; // its folder's about.json, if it has one
  // The weights' hash (www/worker/model.js weightsHash), kept from the entry's first load: a
  // playground run's entry opens again with its latest weights, but stays named by its step 0's.
  model.weightsHash ??= info.weightsHash;
  state.model = model;
  state.config = info.config;
  state.selection = clampSelection(state.selection);
  state.trace = null;
  state.stages = null;
  expectSummaries({});
  // A fresh worker holds the shipped weights: the final snapshot.
  state.timeline = info.timeline;
  state.snapshot = info.timeline ? info.timeline.snapshots.length - 1 : 0;
  state.wantedSnapshot = null;
  state.positional = info.positional;
  state.firstHeatmapDue = true;
  $('timeline-panel').hidden = !info.timeline;
  refresh('timeline');
  delete document.body.dataset.snapshot; // until the first answer is drawn
  $('model-select').value = model.name;
  document.body.dataset.model = model.name;
  showModelDescription();
  refresh('positional');
  $('loading').hidden = true;
  clearMessageForModel();
  if (info.timelineNote) showMessage(messageText(info.timelineNote), 'info');
  if (info.notes?.length) showMessage(t('openModel.importNotes', { notes: info.notes.join(' · ') }), 'info');
  announce('model-loaded', { model, info });
}

/** What of the paper's design `config` switched off (the playground's switches), in words. */
function switchesOff(config) {
  const off = [];
  if (config.causalDecoder === false) off.push(t('model.switch.causalDecoder'));
  if (config.positionalEncoding && config.positionalEncoding !== 'sinusoidal')
    off.push(t(`model.switch.positional.${config.positionalEncoding}`));
  if (config.scaledAttention === false) off.push(t('model.switch.scaledAttention'));
  if (config.layerNorm === false) off.push(t('model.switch.layerNorm'));
  return off;
}

/** What the page says when `model` did not load because of `error` (a text). */
export function loadFailed(model, error) {
  if (!model?.local || model.name) return t('message.loadFailed', { model: model ? modelTitle(model) : '', error });
  return model.folder ? t('openModel.failedFolder', { folder: model.folder, error }) : t('openModel.failedFiles', { error });
}

/**
 * The model's description and its data's credits, in the page's language, from the model's own
 * folder (its about.json: copied into models/index.json for a shipped model, read by the worker
 * for one opened from the computer); a folder without one shows its config's description and no
 * credits.
 */
export function showModelDescription() {
  const about = state.model?.about;
  const inLanguage = (texts) => texts?.[language()] ?? texts?.en;
  const description = inLanguage(about?.description) ?? state.config?.description ?? '';
  // A model with part of the paper's design switched off (a playground model) says which.
  const off = state.config ? switchesOff(state.config) : [];
  const offText = off.length ? t('model.switchesOff', { switches: off.join('; ') }) : '';
  $('model-description').textContent = [state.model?.local ? t('openModel.fromComputer') : '', description, offText]
    .filter(Boolean)
    .join(' ');
  const credits = (about?.credits ?? []).map((credit) =>
    credit.url
      ? el('a', { text: inLanguage(credit), attrs: { href: credit.url, rel: 'noopener' } })
      : el('span', { text: inLanguage(credit) }),
  );
  const lead = about && t(credits.length ? 'page.modelData' : 'page.modelDataNone', { model: modelTitle(state.model) });
  const shown = about ? [lead, ...credits.flatMap((credit, i) => (i ? [t('page.creditsJoin'), credit] : [credit])), ' · '] : [];
  $('model-credits').replaceChildren(...shown);
  $('model-credits').hidden = !about;
}

/** How the selector and the messages name `model`. */
export function modelTitle(model) {
  return model.local ? t('openModel.option', { name: model.label }) : model.name;
}

/** The selector's option for `model`. */
export const modelOption = (model) => [...$('model-select').options].find((o) => o.value === model.name);

/** Open a picked or dropped model; the model on screen stays, and works, until the new one has loaded. */
export async function openLocalModel({ folder, entries }) {
  if (state.saved) leaveSavedTrace();
  state.sentenceOpen = false; // another model: a new entry in the history
  await boot(undefined, { local: true, name: null, label: null, folder, sources: entries });
}

/**
 * `model` has loaded: name it after its config (or its folder), and add it to the selector. Each
 * load gets a name of its own, since the comparison view and the links tell models apart by name;
 * a model opened again replaces its older copy there.
 */
function addLocalModel(model, config) {
  model.label = config.name || model.folder || t('openModel.unnamed');
  model.example = config.example;
  let name = `${LOCAL_MODEL_PREFIX}${model.label}`;
  for (let n = 2; state.localNames.has(name); n++) name = `${LOCAL_MODEL_PREFIX}${model.label}-${n}`;
  state.localNames.add(name);
  model.name = name;
  const older = state.models.findIndex((m) => m.local && m.label === model.label);
  if (older >= 0) {
    modelOption(state.models[older]).remove();
    state.models.splice(older, 1);
  }
  state.models.push(model);
  $('model-select').append(option(model.name, modelTitle(model)));
}

/** The selector picked model `name`: load it with its example; the sentence typed comes back if it fails. */
export async function switchModel(name) {
  const model = state.models.find((m) => m.name === name);
  if (!model) return;
  const previousText = $('source-input').value;
  $('source-input').value = model.example || '';
  const ticket = state.bootTicket + 1;
  state.sentenceOpen = false; // another model: a new entry in the history
  if (!(await boot(undefined, model)) && ticket === state.bootTicket) $('source-input').value = previousText;
}

/** The masks view's padded batch: the model's example and a short sentence. */
async function loadPaddingDemo() {
  const example = state.config?.example || 'Hello.';
  const short = state.model?.name === 'date-iso' ? '1 May 2000' : 'Hello!';
  try {
    state.batch = await call('batch', { texts: [example, short] });
    refresh('masks');
  } catch (error) {
    showMessage(failureText(error));
  }
}

/**
 * Use the weights of snapshot `index`; resolves once the page shows them (true) or not (false).
 * Picks are coalesced: while one loads, only the latest wish waits (a dragged slider asks for many).
 */
export function pickSnapshot(index) {
  state.wantedSnapshot = index;
  state.snapshotsLoading ??= loadWantedSnapshots().finally(() => {
    state.snapshotsLoading = null;
  });
  return state.snapshotsLoading.then(() => state.snapshot === index);
}

async function loadWantedSnapshots() {
  while (state.wantedSnapshot != null) {
    const next = state.wantedSnapshot;
    state.wantedSnapshot = null;
    if (state.timeline && next !== state.snapshot) await loadSnapshot(next);
  }
}

async function loadSnapshot(index) {
  const { client, views } = parts;
  const worker = client.inUse();
  const { step } = state.timeline.snapshots[index];
  try {
    const result = await call('snapshot', { step });
    if (client.inUse() !== worker) return; // another model was loaded meanwhile
    clearMessageUnlessInfo();
    state.snapshot = index;
    if (result && Object.hasOwn(result, 'heads')) state.headStudy = result.heads; // a playground snapshot's heads.json
    views.timeline.show(index);
    // In beam mode the search itself depends on the weights: search again with the new ones.
    if (result && decoding() === BEAM) await translate();
    else if (result) showAnswer(result, null);
    else markSnapshot();
    noteRecording(result);
    await whenDrawn();
  } catch (error) {
    if (client.inUse() !== worker) return;
    // The worker keeps the weights it had: the slider goes back to them.
    views.timeline.show(state.snapshot);
    handleError(error);
  }
}
