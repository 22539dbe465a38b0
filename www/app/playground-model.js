// The playground's model in training, in every view of the page. Each run is opened as a model
// from the computer would be (app/models.js boot), from the model folder of its step 0; then each
// snapshot the training worker posts (www/trainer/run.js) is sent to the model's worker, which
// swaps the weights and decodes the sentence on screen again, and the answer redraws every view:
// heatmaps, model view, head view, journey, ablation. The timeline keeps the run's snapshots
// (www/shared/snapshots.js), so its slider scrubs back through the run. The run's model is named by
// the hash of its step 0's weights throughout (app/models.js `weightsHash`), so the lesson's
// progress on it does not start over at each snapshot.
//
// Snapshots come faster than a redraw on a slow machine: while one is being shown, only the latest
// waits. A run whose model is no longer on screen (the learner picked another) is not followed.

import { keepSnapshot } from '../shared/snapshots.js';
import { showAnswer } from './actions.js';
import { handleError } from './messages.js';
import { boot } from './models.js';
import { markSnapshot, refresh, whenDrawn } from './render.js';
import { call, parts, state } from './store.js';

const live = {
  model: null, // the run's model entry (app/models.js, a local model with `playground` and `timeline`)
  log: { steps: [], losses: [] }, // every step's training loss
  heldout: 0, // the latest held-out greedy exact match
  opening: Promise.resolve(), // the run's model loading
  waiting: null, // the latest snapshot notice not yet shown
  showing: null, // resolves when the snapshots waiting have been shown
};

/** A snapshot notice as a timeline entry ({ step, loss, heldout, kept, bytes, heads: heads.json's bytes }). */
function entryOf(notice) {
  const at = live.log.steps.lastIndexOf(notice.step);
  const loss = at >= 0 ? live.log.losses[at] : Number.NaN;
  const { weights, heads } = notice.folder;
  return { step: notice.step, loss, heldout: live.heldout, kept: notice.kept, bytes: weights, heads };
}

/** The run's timeline as the page's state holds it (www/worker/training.js's shape). */
function timelineOf(snapshots) {
  return {
    model: live.model.folder,
    heldoutMetric: 'greedy exact match',
    heldoutPairs: null,
    live: true,
    snapshots: snapshots.map(({ bytes, heads, ...snapshot }) => snapshot),
    log: { steps: Float32Array.from(live.log.steps), losses: Float32Array.from(live.log.losses) },
  };
}

/** Step 0 of a new run: open its model folder in a fresh model worker. */
async function openRun(notice) {
  live.log = { steps: [], losses: [] };
  live.heldout = 0;
  live.waiting = null;
  const { folder, names } = notice;
  const config = JSON.parse(new TextDecoder().decode(folder.config));
  const name = config.name || 'playground';
  const sources = Object.entries(folder).map(([key, bytes]) => ({
    file: new File([bytes], names[key]),
    path: `${name}/${names[key]}`,
  }));
  const snapshots = [];
  keepSnapshot(snapshots, entryOf(notice));
  live.model = { local: true, playground: true, name: null, label: null, folder: name, sources, timeline: null };
  live.model.timeline = { ...timelineOf([]), snapshots };
  // A link that opens the playground also names the page's model: that loads first, then this.
  await state.firstLink;
  $source().value = config.example ?? '';
  await boot(undefined, live.model);
}

const $source = () => document.getElementById('source-input');

/** Keep the run's latest weights in its entry, so that picking the model again opens them. */
function keepWeights(notice) {
  const weights = notice.names.weights;
  const at = live.model.sources.findIndex((s) => s.file.name === weights);
  if (at >= 0) live.model.sources[at] = { ...live.model.sources[at], file: new File([notice.folder.weights], weights) };
}

async function showWaiting() {
  while (live.waiting) {
    const notice = live.waiting;
    live.waiting = null;
    if (state.model !== live.model) return;
    const entry = entryOf(notice);
    keepSnapshot(live.model.timeline.snapshots, { ...entry });
    keepWeights(notice);
    const worker = parts.client.inUse();
    try {
      const { snapshots, index, answer, heads } = await call('addSnapshot', entry);
      if (parts.client.inUse() !== worker || state.model !== live.model) return;
      state.headStudy = heads;
      state.timeline = timelineOf(snapshots);
      state.snapshot = index;
      refresh('timeline');
      if (answer) showAnswer(answer, null);
      else markSnapshot();
      await whenDrawn();
    } catch (error) {
      handleError(error);
    }
  }
}

/**
 * What the training worker posted: a snapshot at step 0 opens a new run's model; a later one is
 * shown once the one before it has been; reports and evaluations feed the timeline's curves.
 */
export function followTraining(notice) {
  if (notice.type === 'reports') {
    for (const report of notice.reports) {
      live.log.steps.push(report.step);
      live.log.losses.push(report.loss);
    }
  } else if (notice.type === 'evaluation') {
    live.heldout = notice.evaluation.exactMatch;
  } else if (notice.type === 'snapshot') {
    if (notice.step === 0) {
      live.opening = openRun(notice).catch(handleError);
      return;
    }
    if (!live.model) return;
    live.waiting = notice;
    live.showing ??= live.opening.then(showWaiting).finally(() => {
      live.showing = null;
    });
  }
}
