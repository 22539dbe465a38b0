// The race, run in the benchmark's worker (www/bench/worker.js) as the page's plan says
// (www/bench/plan.js). For each model and source length: one untimed translation per engine (its
// tokens checked against the CPU's), `warmup` untimed runs, then `reps` runs in which the engines
// take turns, each timing the encoder (start) and the whole greedy translation (translate). Then
// the training row: `trainWarmup` steps, and `trainReps` runs of `steps` steps, in turns.
//
// What it posts to the page: { type: 'env', adapter, reason } (the WebGPU adapter's info, or why
// there is none), { type: 'progress', label, loaded, total } while a file loads, { type: 'status',
// model?, n?, training? } as it moves on, and { type: 'row', id, state, … } each time a row
// changes (www/bench/plan.js names the rows). A row's state: 'running' | 'done' | 'absent' (its
// engine's files are not served) | 'unavailable' (it cannot run here: `reason`) | 'failed'
// (`reason`). Timings are { median, min, max, runs } in ms.
import { webgpuAdapter } from './adapter.js';
import { cpuEngine, loadCpuModule, modelConfig, modelFiles, webgpuEngine } from './attnscope.js';
import { loadOrt, ortEngine } from './ort.js';
import { ENGINES, rowId, TRAIN_ENGINES, trainId } from './plan.js';
import { attempt, reasonOf } from './problem.js';
import { benchSentences } from './sentences.js';
import { summary, timed } from './stats.js';
import { defaultConfig, trainer } from './training.js';

/** Run the plan over `entries` (models/index.json's entries of the plan's models), posting as it goes. */
export async function race(plan, entries, post) {
  const onProgress = (report) => post({ type: 'progress', ...report });
  const gpu = await webgpuAdapter();
  post({ type: 'env', ...gpu });
  await loadCpuModule(onProgress);
  const ort = await attempt(loadOrt());
  for (const entry of entries) await raceModel(entry, { plan, gpu, ort, post, onProgress });
  await raceTraining({ plan, gpu, post, onProgress });
}

/** Every engine of model `name`: { engine: { value } | { reason } | { absent: reason } }. */
async function engines(name, files, config, { gpu, ort, onProgress }) {
  const made = { cpu: await attempt(Promise.resolve().then(() => cpuEngine(files))) };
  made.webgpu = gpu.reason ? { reason: gpu.reason } : await attempt(webgpuEngine(files, onProgress));
  if (ort.reason) made.ort = { reason: ort.reason };
  else if (!ort.value) made.ort = { absent: null };
  else {
    made.ort = await attempt(ortEngine(ort.value, name, config));
    if (made.ort.reason?.key === 'noModel') made.ort = { absent: made.ort.reason };
  }
  return made;
}

/** A row that will not run: absent, or unavailable for `reason`. */
function settled(post, id, outcome) {
  if ('absent' in outcome) post({ type: 'row', id, state: 'absent', reason: outcome.absent });
  else post({ type: 'row', id, state: 'unavailable', reason: outcome.reason });
}

async function raceModel(entry, context) {
  const { plan, post, onProgress } = context;
  const ids = (n) => ENGINES.map((engine) => rowId(entry.name, n, engine));
  const files = await attempt(modelFiles(entry, onProgress));
  if (files.reason) {
    for (const n of plan.lengths) for (const id of ids(n)) post({ type: 'row', id, state: 'failed', reason: files.reason });
    return;
  }
  const config = modelConfig(files.value);
  const made = await engines(entry.name, files.value, config, context);
  const live = ENGINES.filter((engine) => made[engine].value);
  const sentences = made.cpu.value ? await attempt(benchSentences(made.cpu.value.session, entry.name, plan.lengths)) : made.cpu;
  for (const n of plan.lengths) {
    post({ type: 'status', model: entry.name, n });
    for (const engine of ENGINES) {
      const id = rowId(entry.name, n, engine);
      if (n > config.max_len)
        post({ type: 'row', id, state: 'unavailable', reason: { key: 'tooLong', params: { maxLen: config.max_len } } });
      else if (sentences.reason) post({ type: 'row', id, state: 'failed', reason: sentences.reason });
      else if (!made[engine].value) settled(post, id, made[engine]);
    }
    if (n <= config.max_len && sentences.value) {
      await raceLength(
        live.map((engine) => made[engine].value),
        { model: entry.name, n, text: sentences.value[n] },
        plan,
        post,
      );
    }
  }
  for (const engine of live) await attempt(Promise.resolve().then(() => made[engine].value.free()));
}

/**
 * One source length: every engine in `racers` translates once (the CPU first: its tokens are the
 * others' reference), warms up, then takes its turn in each run.
 */
async function raceLength(racers, { model, n, text }, plan, post) {
  const rows = new Map(); // racer → its row
  let reference = null;
  for (const racer of racers) {
    const id = rowId(model, n, racer.name);
    if (racer.name !== 'cpu' && !reference) {
      post({ type: 'row', id, state: 'failed', reason: { key: 'noReference' } });
      continue;
    }
    post({ type: 'row', id, state: 'running' });
    const prepared = await attempt(racer.prepare(text, reference));
    if (prepared.reason) {
      post({ type: 'row', id, state: 'failed', reason: prepared.reason });
      continue;
    }
    const { srcIds, tgtIds } = prepared.value;
    if (racer.name === 'cpu') reference = prepared.value;
    const differs = reference !== prepared.value && tgtIds.join() !== reference.tgtIds.join();
    rows.set(racer, { id, n: srcIds.length, out: tgtIds.length - 1, differs, encode: [], greedy: [] });
  }
  const turn = async (racer, row, sample) => {
    try {
      const encode = await timed(() => racer.encode(text));
      const greedy = await timed(() => racer.translate(text));
      if (sample) {
        row.encode.push(encode);
        row.greedy.push(greedy);
      }
    } catch (error) {
      rows.delete(racer);
      post({ type: 'row', id: row.id, state: 'failed', reason: reasonOf(error) });
    }
  };
  for (let run = 0; run < plan.warmup + plan.reps; run++) {
    const sample = run >= plan.warmup;
    for (const [racer, row] of rows) {
      await turn(racer, row, sample);
      if (sample && rows.has(racer)) post(translationRow(row, run === plan.warmup + plan.reps - 1));
    }
  }
}

const translationRow = (row, last) => ({
  type: 'row',
  id: row.id,
  state: last ? 'done' : 'running',
  n: row.n,
  out: row.out,
  differs: row.differs,
  encode: summary(row.encode),
  greedy: summary(row.greedy),
});

/** The training rows: the default run on each engine, in turns. */
async function raceTraining({ plan, gpu, post, onProgress }) {
  post({ type: 'status', training: true });
  const config = await attempt(defaultConfig(onProgress));
  const rows = [];
  for (const engine of TRAIN_ENGINES) {
    const id = trainId(engine);
    const made = engine === 'webgpu' && gpu.reason ? { reason: gpu.reason } : await attempt(trainer(engine, onProgress));
    if (made.reason || config.reason) {
      post({ type: 'row', id, state: made.reason ? 'unavailable' : 'failed', reason: made.reason ?? config.reason });
      continue;
    }
    post({ type: 'row', id, state: 'running', config: config.value, steps: plan.steps });
    rows.push({ id, trainer: made.value, samples: [] });
  }
  const fail = (row, reason) => {
    rows.splice(rows.indexOf(row), 1);
    post({ type: 'row', id: row.id, state: 'failed', reason });
  };
  for (const row of [...rows]) {
    const warm = plan.trainWarmup > 0 ? await attempt(row.trainer.step(plan.trainWarmup)) : {};
    if (warm.reason) fail(row, warm.reason);
  }
  for (let run = 0; run < plan.trainReps; run++) {
    for (const row of [...rows]) {
      const took = await attempt(timed(() => row.trainer.step(plan.steps)));
      if (took.reason) {
        fail(row, took.reason);
        continue;
      }
      row.samples.push(took.value / plan.steps);
      const state = run === plan.trainReps - 1 ? 'done' : 'running';
      post({ type: 'row', id: row.id, state, config: config.value, steps: plan.steps, step: summary(row.samples) });
    }
  }
  for (const row of rows) row.trainer.free();
}
