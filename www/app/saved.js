// What leaves the page and comes back: each view the registry exports (app/views.js `exportAs`)
// saved as PNG or SVG, the trace saved as JSON, and a saved trace shown again in every view
// without the model (the page says so).
import { $, el } from '../ui/dom.js';
import { fileName, readTrace, saveJson, savePng, saveSvg } from '../ui/export.js';
import { t } from '../ui/i18n.js';
import { clampSelection, showBeamControls, translate } from './actions.js';
import { BEAM, decoding } from './controls.js';
import { clearMessage, showMessage } from './messages.js';
import { renderAll, renderStepButtons } from './render.js';
import { parts, state } from './store.js';
import { expectSummaries, summariesIn } from './summaries.js';
import { VIEWS } from './views.js';

/** The views saved as PNG and SVG: each with its section (whose title the buttons go beside). */
const exported = () => VIEWS.filter((entry) => entry.exportAs).map((entry) => ({ entry, section: $(entry.panel).closest('section') }));

/** The controls that ask the model, off while a saved trace is shown. */
const LIVE_CONTROLS = [
  'prefix-input',
  'prefix-button',
  'model-select',
  'open-model',
  'open-model-folder',
  'backend-select',
  'sampling-select',
];

/** What the page shows: its model's name and sentence (a saved trace's while one is shown). */
function shownSource() {
  if (state.saved) return { model: state.saved.model, text: state.saved.text };
  return { model: state.model?.label ?? state.model?.name, text: $('source-input').value };
}

/** Save the view of registry entry `entry` as `format` ('png' or 'svg'). */
async function exportView(entry, format) {
  const view = parts.views[entry.name];
  const figure = view.figure();
  if (!figure) {
    showMessage(t('export.nothing'), 'info');
    return;
  }
  // The focused heatmap names the head it shows.
  const name = fileName({ ...shownSource(), view: view.viewName?.() ?? entry.exportAs }, format);
  try {
    if (format === 'svg') saveSvg(figure, name);
    else await savePng(figure, name);
  } catch (error) {
    showMessage(t('export.failed', { error: error.message }));
  }
}

/** PNG and SVG buttons beside the title of every exported view's section (its data-export names the view). */
export function addExportButtons() {
  for (const { entry, section } of exported()) {
    section.dataset.export = entry.exportAs;
    const title = section.querySelector('h2');
    const buttons = ['png', 'svg'].map((format) => {
      const button = el('button', {
        className: 'export-button',
        text: format.toUpperCase(),
        attrs: { type: 'button' },
        data: { format, view: entry.exportAs },
      });
      button.addEventListener('click', () => exportView(entry, format));
      return button;
    });
    const group = el('div', { className: 'export', attrs: { role: 'group' } }, ...buttons);
    const head = el('div', { className: 'panel-head' });
    title.before(head);
    head.append(title, group);
  }
  labelExportButtons();
}

/** The export buttons' names say which view they save, in the language in use. */
export function labelExportButtons() {
  for (const { section } of exported()) {
    const view = section.querySelector('h2').textContent;
    for (const button of section.querySelectorAll('.export-button')) {
      const label = t(button.dataset.format === 'png' ? 'export.png' : 'export.svg', { view });
      button.setAttribute('aria-label', label);
      button.title = label;
    }
    section.querySelector('.export').setAttribute('aria-label', t('export.group', { view }));
  }
}

/** Save the answer on screen as JSON, in the schema of `attnscope trace --json`. */
export async function saveTrace() {
  if (!state.trace) {
    showMessage(t('export.nothing'), 'info');
    return;
  }
  await summariesIn();
  saveJson({ trace: state.trace, stages: state.stages, analysis: state.analysis }, fileName({ ...shownSource(), view: 'trace' }, 'json'));
}

/** The sentence a trace was made from, as near as its tokens tell (without the closing </s>). */
function sentenceOf(trace) {
  const words = trace.srcTokens.slice(0, -1);
  return words.every((w) => [...w].length === 1) ? words.join('') : words.join(' ');
}

/** Show a trace read from `file` in every view, without the model: the page says so. */
export async function openSavedTrace(file) {
  let read;
  try {
    read = await readTrace(file);
  } catch (error) {
    showMessage(t('saved.unreadable', { name: file.name, error: error.message }));
    return;
  }
  clearTimeout(state.typingTimer);
  state.generation += 1;
  state.shownGeneration = state.generation;
  state.playing = false;
  if (!state.saved) state.liveConfig = state.config;
  const { answer, config } = read;
  state.saved = { name: file.name, model: answer.trace.model, text: sentenceOf(answer.trace), stages: answer.stages };
  state.config = config;
  state.trace = answer.trace;
  state.stages = answer.stages;
  expectSummaries(answer);
  const { stages } = answer;
  state.selection = clampSelection(stages ? { kind: stages.kind, layer: stages.layer, head: stages.head } : state.selection);
  showBeamControls(false);
  showSavedMode();
  clearMessage();
  await renderAll();
}

/** Back to the model: the sentence in the input box is translated again. */
export function leaveSavedTrace() {
  if (!state.saved) return;
  state.saved = null;
  state.config = state.liveConfig;
  state.selection = clampSelection(state.selection);
  showSavedMode();
  showBeamControls(decoding() === BEAM);
  translate();
}

/** The banner, and the live-only sections and controls hidden or off, while a saved trace is shown. */
export function showSavedMode() {
  const saved = Boolean(state.saved);
  $('saved-banner').hidden = !saved;
  $('saved-name').textContent = saved ? t('saved.file', { name: state.saved.name, model: state.saved.model }) : '';
  document.body.dataset.saved = String(saved);
  for (const section of document.querySelectorAll('[data-live-only]')) {
    if (saved) {
      section.dataset.hiddenForSaved ??= String(section.hidden);
      section.hidden = true;
    } else if (section.dataset.hiddenForSaved) {
      section.hidden = section.dataset.hiddenForSaved === 'true';
      delete section.dataset.hiddenForSaved;
    }
  }
  for (const id of LIVE_CONTROLS) $(id).disabled = saved;
  renderStepButtons();
}
