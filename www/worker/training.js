// A model's training timeline, as the worker reads it for the timeline view: timeline.json (the
// snapshots: step, weights file, loss, held-out figure) and train_log.tsv (the loss of every
// optimizer step). Only models whose index entry lists timeline.json have one.

/** The timeline's files in a model folder (written by the training run, listed in models/index.json). */
export const TIMELINE_FILE = 'timeline.json';
export const TRAIN_LOG_FILE = 'train_log.tsv';

/**
 * train_log.tsv (a header `step epoch loss lr seconds`, then one line per optimizer step) →
 * { steps, losses }: two Float32Arrays of the same length, in file order. Columns are found by
 * name; a line without a finite step and loss is skipped.
 */
export function parseTrainLog(text) {
  const lines = text.split('\n');
  const header = lines[0].trim().split('\t');
  const stepColumn = header.indexOf('step');
  const lossColumn = header.indexOf('loss');
  if (stepColumn < 0 || lossColumn < 0) throw new Error(`${TRAIN_LOG_FILE} has no step and loss columns`);
  const steps = [];
  const losses = [];
  for (const line of lines.slice(1)) {
    const fields = line.split('\t');
    const step = Number(fields[stepColumn]);
    const loss = Number(fields[lossColumn]);
    if (line.trim() && Number.isFinite(step) && Number.isFinite(loss)) {
      steps.push(step);
      losses.push(loss);
    }
  }
  return { steps: Float32Array.from(steps), losses: Float32Array.from(losses) };
}

/**
 * The timeline of a model, read through `readFile(name) → Promise<Uint8Array>`, or null when its
 * index entry `files` lists none: { model, heldoutMetric, heldoutPairs, snapshots, log }, with
 * snapshots = [{ step, file, loss, lossStep, heldout }] by step and log = parseTrainLog's.
 */
export async function loadTimeline(files, readFile) {
  if (!files[TIMELINE_FILE]) return null;
  const text = async (name) => new TextDecoder().decode(await readFile(name));
  const timeline = JSON.parse(await text(TIMELINE_FILE));
  if (!Array.isArray(timeline.snapshots) || !timeline.snapshots.length) throw new Error(`${TIMELINE_FILE} lists no snapshot`);
  timeline.snapshots.sort((a, b) => a.step - b.step);
  const log = files[TRAIN_LOG_FILE] ? parseTrainLog(await text(TRAIN_LOG_FILE)) : parseTrainLog('step\tloss\n');
  return { ...timeline, log };
}
