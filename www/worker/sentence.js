// The current sentence as operations, kept to replay it on another session (a WebGPU session that
// takes over, or the CPU when WebGPU is lost): the page's focus and sampling, the snapshot weights
// in use, and the log of what was done to the sentence.

export const sentence = {
  focus: null, // { kind, layer, head }: the head whose stages every answer carries
  sampling: null, // { mode, temperature, topK, seed }, or null for the default (greedy)
  snapshot: null, // { type: 'snapshot', step, weights } in use, or null: the shipped weights
  log: [], // operations on the current sentence (and the snapshot it began with), to replay
};

/** Apply the page's focus and sampling to a session that has not seen them. */
export function configure(session) {
  const { focus, sampling } = sentence;
  if (focus) session.setFocus(focus.kind, focus.layer, focus.head);
  if (sampling) session.setSampling(sampling.mode, sampling.temperature, sampling.topK, sampling.seed);
  return session;
}

/** One operation on the current sentence; resolves to the session's Answer. */
export function apply(session, op) {
  switch (op.type) {
    case 'translate':
      return session.translate(op.text);
    case 'step':
      return session.step();
    case 'runToEnd':
      return session.runToEnd();
    case 'back':
      return session.back();
    case 'reset':
      return session.reset();
    case 'force':
      return session.force(op.index, op.id, op.continue);
    case 'forceIds':
      return session.forceIds(op.ids, op.continue);
    case 'prefix':
      return session.prefix(op.text);
    case 'snapshot':
      return session.loadSnapshot(op.weights);
    default:
      throw new Error(`unknown operation ${op.type}`);
  }
}

const isSentenceOp = (op) => op.type !== 'snapshot';

/** Whether a sentence was started (weights alone are not one). */
export const hasSentence = () => sentence.log.some(isSentenceOp);

/**
 * Run the logged operations on `session`; resolves to the last Answer, or null when no sentence
 * was started (weights alone re-decode whatever the session held, nothing the page asked for).
 */
export async function replay(session) {
  let answer = null;
  for (const op of sentence.log) answer = await apply(session, op);
  return hasSentence() ? answer : null;
}

/** `op` was applied to the sentence: log it for a replay. */
export function logOp(op) {
  const { log } = sentence;
  // A new sentence starts from the weights in use: a replay loads them first.
  if (op.type === 'translate') sentence.log = sentence.snapshot ? [sentence.snapshot, op] : [op];
  else if (op.type !== 'snapshot') log.push(op);
  else {
    // Weights: kept for every later sentence, and logged after the sentence's operations so far;
    // of two in a row, the later weights decide.
    sentence.snapshot = op;
    if (!hasSentence()) sentence.log = [op];
    else if (log.at(-1).type === 'snapshot') log[log.length - 1] = op;
    else log.push(op);
  }
}

/** The text of the current sentence, or null before one. */
export function currentText() {
  return sentence.log.find((op) => op.type === 'translate')?.text ?? null;
}

/** A new model: nothing to replay. */
export function forgetSentence() {
  sentence.log = [];
}
