// What the benchmark runs, read from the page's query:
//   bench.html          every shipped model (models/index.json), sources of 8, 16 and 32 tokens
//                       (those that fit the model), REPS runs after WARMUP, and TRAIN_REPS runs of
//                       TRAIN_STEPS training steps after TRAIN_WARMUP steps;
//   bench.html?quick    the smallest model alone, 8 tokens, two runs after one, two runs of two
//                       steps (the browser test's; SwiftShader's WebGPU is slow);
// and, over either, models=a,b · lengths=8,16 · reps · warmup · steps · trainReps · trainWarmup.
// The page and the bench's worker share it: the page sends the plan, the worker follows it.

/** The source lengths of a full run. */
export const LENGTHS = [8, 16, 32];
/** The engines, in the order the table lists them. */
export const ENGINES = ['cpu', 'webgpu', 'ort'];
/** The training engines (onnxruntime-web does not train). */
export const TRAIN_ENGINES = ['cpu', 'webgpu'];

const FULL = { lengths: LENGTHS, reps: 5, warmup: 2, steps: 10, trainReps: 5, trainWarmup: 3 };
const QUICK = { models: ['date-iso'], lengths: [8], reps: 2, warmup: 1, steps: 2, trainReps: 2, trainWarmup: 1 };

const list = (text) => text.split(',').filter(Boolean);
const count = (text, least) => {
  if (text == null || text === '') return null;
  const n = Number(text);
  return Number.isInteger(n) && n >= least ? n : null;
};

/**
 * The plan for `search` (location.search) over the shipped `models` (index.json's names, in its
 * order): { quick, models, lengths, reps, warmup, steps, trainReps, trainWarmup }.
 */
export function readPlan(search, models) {
  const query = new URLSearchParams(search);
  const quick = query.has('quick');
  const plan = { quick, models, ...(quick ? QUICK : FULL) };
  if (query.get('models')) plan.models = list(query.get('models')).filter((name) => models.includes(name));
  if (query.get('lengths'))
    plan.lengths = list(query.get('lengths'))
      .map(Number)
      .filter((n) => count(n, 2));
  for (const [name, least] of [
    ['reps', 1],
    ['warmup', 0],
    ['steps', 1],
    ['trainReps', 1],
    ['trainWarmup', 0],
  ]) {
    const n = count(query.get(name), least);
    if (n != null) plan[name] = n;
  }
  return plan;
}

/** The rows of the plan's tables, in order: { id, section, engine, model?, n? }. */
export function planRows(plan) {
  const rows = [];
  for (const model of plan.models) {
    for (const n of plan.lengths) {
      for (const engine of ENGINES) rows.push({ id: rowId(model, n, engine), section: 'translate', model, n, engine });
    }
  }
  for (const engine of TRAIN_ENGINES) rows.push({ id: trainId(engine), section: 'train', engine });
  return rows;
}

export const rowId = (model, n, engine) => `translate/${model}/${n}/${engine}`;
export const trainId = (engine) => `train/${engine}`;
