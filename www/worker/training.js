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
  const headerEnd = text.indexOf('\n');
  const header = text
    .slice(0, headerEnd < 0 ? text.length : headerEnd)
    .trim()
    .split('\t');
  const stepColumn = header.indexOf('step');
  const lossColumn = header.indexOf('loss');
  if (stepColumn < 0 || lossColumn < 0) throw new Error(`${TRAIN_LOG_FILE} has no step and loss columns`);
  const steps = [];
  const losses = [];
  // A line at a time and only its two fields, not every line split into every field: a shipped
  // model's log is 26,000 lines, read while the first heatmap waits (in Node, 33–40 ms split,
  // 11–20 ms so).
  for (let start = headerEnd + 1; headerEnd >= 0 && start <= text.length; ) {
    const newline = text.indexOf('\n', start);
    const end = newline < 0 ? text.length : newline;
    const step = Number(field(text, start, end, stepColumn));
    const loss = Number(field(text, start, end, lossColumn));
    if (Number.isFinite(step) && Number.isFinite(loss) && !blank(text, start, end)) {
      steps.push(step);
      losses.push(loss);
    }
    start = end + 1;
  }
  return { steps: Float32Array.from(steps), losses: Float32Array.from(losses) };
}

/** Whether text[start, end) is whitespace alone (it stops at the first other character). */
function blank(text, start, end) {
  for (let i = start; i < end; i++) if (text[i].trim()) return false;
  return true;
}

/** Tab-separated field `column` of the line text[start, end), or undefined when it has fewer. */
function field(text, start, end, column) {
  let from = start;
  for (let k = 0; k < column; k++) {
    const tab = text.indexOf('\t', from);
    if (tab < 0 || tab >= end) return undefined;
    from = tab + 1;
  }
  const tab = text.indexOf('\t', from);
  return text.slice(from, tab < 0 || tab > end ? end : tab);
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
