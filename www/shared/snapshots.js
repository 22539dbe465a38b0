// The snapshots a playground run keeps for the timeline, kept the same way by the page
// (app/playground-model.js) and by the model's worker (worker/handlers.js addSnapshot): every
// snapshot the run marks `kept` (step 0, each power of two, the last step), and the latest one
// whatever its step, so that the views and the timeline always end at the weights in training.
// A run of 1,500 steps keeps 13 of them.

/**
 * Add `entry` ({ step, kept, … }) to `snapshots` (in step order, changed in place): the latest
 * snapshot before it goes unless it is kept, and a snapshot of the same step is replaced.
 * Returns the entry's index.
 */
export function keepSnapshot(snapshots, entry) {
  const last = snapshots.at(-1);
  if (last?.step === entry.step) entry.kept ||= last.kept;
  if (last && (!last.kept || last.step === entry.step)) snapshots.pop();
  snapshots.push(entry);
  return snapshots.length - 1;
}
