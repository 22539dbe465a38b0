// The bench sentences, shared by the bench page (bench.js) and the profiling page (profile.js):
// benches/web/sentences.json's n − 1 words in turn, only those that are one source token each
// where the file says so, and </s> (benches/native.rs builds the same). A model the file does not
// name (a random one, with en-zh's words) takes en-zh's, as benches/inputs.py does.

/** Every length the file lists (the model's own list where it has one) that fits the model: [{ n, text }]. */
export async function benchSentences(session, config) {
  const response = await fetch('/bench/sentences.json');
  if (!response.ok) throw new Error(`/bench/sentences.json: HTTP ${response.status}`);
  const file = await response.json();
  const spec = file.models[config.name] || file.models['en-zh'];
  const words = [];
  for (const word of spec.candidates) {
    if (!spec.oneTokenWords || (await session.start(word)).trace.srcIds.length === 2) words.push(word);
  }
  return (spec.lengths ?? file.lengths)
    .filter((n) => n <= config.max_len)
    .map((n) => ({ n, text: Array.from({ length: n - 1 }, (_, i) => words[i % words.length]).join(spec.joiner) }));
}
