// Requests are handled one at a time, in order. A request carrying `gen` (a sentence's number)
// that a newer one has superseded by the time its turn comes is answered { stale: true } without
// running.

const queue = {
  tail: Promise.resolve(), // resolves once every job queued so far has run
  latestGeneration: 0, // the highest `gen` any request has carried
};

/** Run `job` after every job queued before it; resolves (or rejects) as it does. */
export function enqueue(job) {
  const run = queue.tail.then(job);
  queue.tail = run.catch(() => {
    // Every job reports its own failure (a request in its reply, a background job in a backend
    // note); the queue only has to carry on with the next one.
  });
  return run;
}

/** A request with generation `gen` (or none) arrived. */
export function noteGeneration(gen) {
  if (gen != null) queue.latestGeneration = Math.max(queue.latestGeneration, gen);
}

/** Whether a request with generation `gen` has been superseded. */
export const isStale = (gen) => gen != null && gen < queue.latestGeneration;
