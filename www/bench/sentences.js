// The benchmark's sentences (www/bench/sentences.json): for a source of n tokens, n − 1 of the
// model's candidate words in turn and </s> — only candidates that are one source token each where
// the file says so, as benches/web/sentences.js builds them.
import sentences from './sentences.json' with { type: 'json' };

/** The words a sentence is built of, for `model`, checked one by one with `session` (start()). */
async function words(session, model) {
  const spec = sentences.models[model] ?? sentences.models['en-zh'];
  const kept = [];
  for (const word of spec.candidates) {
    if (!spec.oneTokenWords || (await session.start(word)).trace.srcIds.length === 2) kept.push(word);
  }
  return { words: kept, joiner: spec.joiner };
}

/** The sentence of `n` source tokens (</s> included) for each of `lengths`: { n: text }. */
export async function benchSentences(session, model, lengths) {
  const { words: kept, joiner } = await words(session, model);
  return Object.fromEntries(lengths.map((n) => [n, Array.from({ length: n - 1 }, (_, i) => kept[i % kept.length]).join(joiner)]));
}
