// The benchmark's worker: the race runs here, off the page's thread, so the page stays usable and
// draws each row as it comes. The page sends { type: 'run', plan, entries }; the worker answers
// what www/bench/race.js posts, then { type: 'done' } or { type: 'failed', reason }.
import { reasonOf } from './problem.js';
import { race } from './race.js';

const post = (message) => self.postMessage(message);

self.onmessage = async ({ data }) => {
  if (data?.type !== 'run') return;
  try {
    await race(data.plan, data.entries, post);
    post({ type: 'done' });
  } catch (error) {
    post({ type: 'failed', reason: reasonOf(error) });
  }
};
