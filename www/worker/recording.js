// Recorded snapshots. A model whose snapshots do not fit the repository (en-zh: 10 MB each) keeps,
// for a fixed set of sentences, what each snapshot answered: every attention matrix, the decoding
// steps' probabilities, the default head's stages and the analysis, as `attnscope trace --json
// --analysis` writes them (src/train/recording.rs). While one is picked, a recorded sentence is
// answered from it; any other sentence is decoded by the final weights, and the page says so.
// Stepping, forcing, beams and the other tools need weights: on a recorded sentence they are
// refused with a message that says why.

/** The recording in use: { step, sentences, answers }, or null (the session's weights answer). */
let current = null;

/** Why an operation is refused on a recorded sentence: the page says it in its language. */
class RecordedOnly extends Error {
  constructor(step) {
    super(`step ${step} is a recording of this sentence: move the timeline to its last snapshot to use the model itself`);
    this.problem = { key: 'timeline.recordedOnly', params: { step } };
  }
}

/** Gzip (magic 1f 8b) is undone with the browser's DecompressionStream; anything else is as it came. */
async function gunzip(bytes) {
  if (bytes[0] !== 0x1f || bytes[1] !== 0x8b) return bytes;
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The form a sentence is looked up in: trimmed, runs of spaces as one. */
const key = (text) => text.trim().replace(/\s+/g, ' ');

/**
 * Use the recording in `bytes` (timeline.json's snapshot `entry`, of the timeline's `sentences`).
 * A file that does not hold one answer per sentence is refused, and the recording in use stays.
 */
export async function useRecording(entry, sentences, bytes) {
  let recording;
  try {
    recording = JSON.parse(new TextDecoder().decode(await gunzip(bytes)));
  } catch (error) {
    throw new Error(`${entry.file}: ${error.message}`);
  }
  if (!Array.isArray(recording.answers) || recording.answers.length !== sentences.length) {
    throw new Error(`${entry.file} does not hold one answer for each of the ${sentences.length} recorded sentences`);
  }
  current = { step: entry.step, sentences: sentences.map(key), answers: recording.answers };
}

/** Back to the session's weights (the last snapshot, or another model). */
export function dropRecording() {
  current = null;
}

/** The step of the recording in use, or null. */
export const recordingStep = () => current?.step ?? null;

/**
 * The recorded answer for `text`, or null when no recording is in use or it did not record
 * `text`. Its stages are the default head's: for another `focus` the answer has none.
 */
export function recordedAnswer(text, focus, defaultFocus) {
  if (!current || text == null) return null;
  const index = current.sentences.indexOf(key(text));
  if (index < 0) return null;
  const answer = current.answers[index];
  const same = !focus || (focus.kind === defaultFocus.kind && focus.layer === defaultFocus.layer && focus.head === defaultFocus.head);
  return same ? answer : { ...answer, stages: null };
}

/** Refuse an operation that needs weights while `text`, a recorded sentence, is shown from a recording. */
export function refuseOnRecording(text) {
  if (current && text != null && current.sentences.includes(key(text))) throw new RecordedOnly(current.step);
}
