#!/usr/bin/env node
// benches/out/results.json and the tables of benches/RESULTS.md made from it, so that the figures
// in RESULTS.md cannot drift from a run. Plain node, no dependencies.
//
//   node benches/tables.mjs               collect, then render
//   node benches/tables.mjs --from FILE   render from a results.json as it is
//
// Collect: the records of benches/out/records/*.json (browser.mjs, ort_native.py), the native
// attnscope tables of benches/out/native.md (`cargo bench --bench native`, one run) and each
// model's export check (benches/out/MODEL/export.json, or FOLDER/onnx/export.json for a model folder
// under benches/out) become benches/out/results.json:
// { generated, commit, meta, checks, records }, one record per measurement: engine, model, stage,
// src_tokens, out_tokens, median_ms, p95_ms, runs (samples), run (which page load or process).
//
// Render: each block below replaces what is between `<!-- results:NAME -->` and
// `<!-- /results:NAME -->` in benches/RESULTS.md (and the budgets block in docs/benchmarks.md);
// a missing marker pair is an error.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { budgetsBlock, collectPage } from './budgets.mjs';
import {
  BASE,
  BASE_RECORDS,
  BROWSER_ENGINES,
  CPU,
  cell,
  figures,
  GPU,
  MODELS,
  median,
  ms,
  NATIVE,
  NATIVE_ENGINES,
  ORT,
  ORT_NOCACHE,
  PLOT,
  SWEEP_LENGTHS,
  spread,
  WEB,
  WEB_NOCACHE,
} from './figures.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const OUT = join(root, 'benches/out');
const RESULTS_MD = join(root, 'benches/RESULTS.md');
const BENCHMARKS_MD = join(root, 'docs/benchmarks.md');

// ---------------------------------------------------------------- collect

/** The two tables of one run of `cargo bench --bench native` as records. `forward` is derived: the
 * sum of the encode's and the full re-decode's medians (onnxruntime's forward is encoder.onnx + one
 * pass of decoder.onnx, timed as one call); a sum of two p95s is no p95, so it has none. */
export function nativeRecords(markdown, run = 1) {
  const records = [];
  const cells = (line) =>
    line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
  const figure = (cell) => cell.split('/').map((x) => Number(x.trim()));
  const lines = markdown.split('\n');
  for (const [i, line] of lines.entries()) {
    if (!line.startsWith('| model |')) continue;
    const header = cells(line);
    const column = (words) => header.findIndex((h) => h.startsWith(words));
    const bySentence = column('src tokens') >= 0 && column('one step') >= 0;
    const byPrefix = column('output prefix') >= 0 && column('one cached step') >= 0;
    if (!bySentence && !byPrefix) continue;
    const stages = bySentence
      ? { encode: column('encode'), last_step: column('one step'), greedy: column('greedy'), full_redecode: column('full re-decode') }
      : { forced_step: column('one cached step'), forced_redecode: column('full re-decode') };
    for (const row of lines.slice(i + 2)) {
      if (!row.startsWith('|')) break;
      const c = cells(row);
      // native.rs times the forced prefix after a 16-token sentence.
      const [src, out] = bySentence ? [Number(c[column('src tokens')]), Number(c[column('out tokens')])] : [16, Number.parseInt(c[1], 10)];
      const push = (stage, median, p95) =>
        records.push({
          engine: NATIVE,
          model: c[0],
          stage,
          src_tokens: src,
          out_tokens: out,
          median_ms: median,
          p95_ms: p95,
          runs: 30,
          run,
        });
      for (const [stage, at] of Object.entries(stages)) push(stage, ...figure(c[at]));
      if (bySentence) {
        const [encode, full] = [figure(c[stages.encode]), figure(c[stages.full_redecode])];
        push('forward', encode[0] + full[0], null);
      }
    }
  }
  return records;
}

function collect() {
  const results = { generated: new Date().toISOString(), commit: null, meta: {}, checks: {}, records: [] };
  try {
    results.commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout: no commit
  }
  const dir = join(OUT, 'records');
  for (const name of existsSync(dir) ? readdirSync(dir).sort() : []) {
    if (!name.endsWith('.json')) continue;
    const file = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    results.meta[name.replace(/\.json$/, '')] = file.meta;
    results.records.push(...file.records);
  }
  // bench.sh runs the native bench REPEATS times: native-1.md, native-2.md, … (native.md: one run).
  const nativeRuns = readdirSync(OUT)
    .filter((name) => /^native-\d+\.md$/.test(name))
    .sort((a, b) => Number.parseInt(a.slice(7), 10) - Number.parseInt(b.slice(7), 10));
  if (!nativeRuns.length && existsSync(join(OUT, 'native.md'))) nativeRuns.push('native.md');
  nativeRuns.forEach((name, i) => {
    results.records.push(...nativeRecords(readFileSync(join(OUT, name), 'utf8'), i + 1));
  });
  for (const model of MODELS) {
    const file = join(OUT, model, 'export.json');
    if (existsSync(file)) results.checks[model] = JSON.parse(readFileSync(file, 'utf8')).check;
  }
  for (const folder of readdirSync(OUT).sort()) {
    const file = join(OUT, folder, 'onnx', 'export.json');
    if (!existsSync(file)) continue;
    const exported = JSON.parse(readFileSync(file, 'utf8'));
    if (exported.check) results.checks[exported.model] = exported.check;
  }
  results.page = collectPage(OUT);
  writeFileSync(join(OUT, 'results.json'), `${JSON.stringify(results, null, 1)}\n`);
  return results;
}

function label(engine, fig) {
  const adapter = fig.adapter() || 'no adapter';
  return {
    [CPU]: 'attnscope CPU (wasm)',
    [GPU]: /swiftshader/i.test(adapter)
      ? 'attnscope WebGPU (wasm) on SwiftShader, a CPU emulating a GPU'
      : `attnscope WebGPU (wasm), adapter ${adapter}`,
    [WEB]: 'onnxruntime-web (wasm, 1 thread), with its cache',
    [WEB_NOCACHE]: 'onnxruntime-web, no cache (reference)',
    [ORT]: 'onnxruntime CPU (1 thread), with its cache',
    [ORT_NOCACHE]: 'onnxruntime CPU, no cache (reference)',
    [NATIVE]: 'attnscope native (burn flex)',
  }[engine];
}

// ---------------------------------------------------------------- blocks

const nativeRunCount = (results) => new Set(results.records.filter((r) => r.engine === NATIVE).map((r) => r.run)).size;

function runBlock(results) {
  const browser = results.meta.browser || {};
  const native = Object.entries(results.meta).filter(([k]) => k.startsWith('ort_native'));
  const section1 = results.records.filter((r) => MODELS.includes(r.model));
  const loads = new Set(section1.filter((r) => BROWSER_ENGINES.includes(r.engine)).map((r) => r.run)).size;
  const samples = (engine) => section1.find((r) => r.engine === engine && r.stage !== 'greedy_cold')?.runs ?? '–';
  const ortSamples = results.records.find((r) => r.engine === ORT)?.runs;
  const smoke = samples(CPU) < 10 ? ['**A smoke run (fewer than 10 samples per measurement): check that it runs, do not quote it.**'] : [];
  return [
    ...smoke,
    `Generated by \`node benches/tables.mjs\` from \`benches/out/results.json\` (${results.generated.slice(0, 10)}, commit \`${results.commit}\`):`,
    `${loads} separate loads of the bench page, ${samples(CPU)} samples per measurement after 3 warm-up (WebGPU: ${samples(GPU)}),`,
    `Chromium ${browser.chromium || '–'}, onnxruntime-web ${browser.onnxruntimeWeb || '–'};`,
    `${native.length} separate runs of \`ort_native.py\` (onnxruntime ${native[0]?.[1]?.onnxruntime || '–'}, ${ortSamples} samples);`,
    nativeRunCount(results)
      ? `${nativeRunCount(results)} separate run${nativeRunCount(results) > 1 ? 's' : ''} of \`cargo bench --bench native\` (30 samples; its tables in \`benches/out/native-N.md\`).`
      : 'no `benches/out/native-N.md` (`cargo bench --bench native`) in this run: the native attnscope rows are empty.',
  ].join('\n');
}

function exportCheckBlock(results) {
  const rows = [
    '| model | sentences (cached steps) | attention, no cache | attention, cache | cached logits vs cache-less | greedy tokens |',
    '|---|---|---|---|---|---|',
  ];
  for (const [model, c] of Object.entries(results.checks)) {
    const e = (x) => x.toExponential(1);
    rows.push(
      `| ${model} | ${c.sentences} (${c.cachedSteps}) | ≤ ${e(c.maxAbsAttentionDifference)} | ≤ ${e(c.maxAbsAttentionDifferenceCached)} | ≤ ${e(c.maxAbsLogitsDifferenceCachedVsUncached)} | ${c.tokensIdentical ? 'identical' : 'differ'} |`,
    );
  }
  return rows.join('\n');
}

function stageTable(fig, model, engines, stages) {
  const rows = [
    `| src tokens | out tokens | engine | ${stages.map(([, title]) => title).join(' | ')} |`,
    `|---|---|---|${stages.map(() => '---').join('|')}|`,
  ];
  for (const n of fig.lengths(model)) {
    for (const engine of engines) {
      const cells = stages.map(([stage]) => fig.get(engine, model, stage, n));
      const some = cells.find(Boolean);
      if (!some) continue;
      rows.push(`| ${n} | ${some.out} | ${label(engine, fig)} | ${cells.map(cell).join(' | ')} |`);
    }
  }
  return rows.join('\n');
}

/** What each measured stage is called in the tables. */
const STAGE_TITLES = {
  encode: 'encode',
  cached_step: 'one cached step',
  last_step: 'cached step at the end',
  greedy: 'greedy translation',
  greedy_uncached: 'greedy, no cache',
  full_redecode: 'full re-decode',
  greedy_cold: 'cold greedy',
  answer: 'answer',
  page_step: 'page step',
  forward: 'forward',
};

/** One stage table per model, of `engines` over `stages` (names of STAGE_TITLES). */
function stageBlock(fig, engines, stages) {
  const titled = stages.map((stage) => [stage, STAGE_TITLES[stage]]);
  return MODELS.map((model) => `**${model}**\n\n${stageTable(fig, model, engines, titled)}`).join('\n\n');
}

function browserBlock(fig) {
  const stages = ['encode', 'cached_step', 'greedy', 'greedy_uncached', 'full_redecode', 'greedy_cold', 'answer', 'page_step'];
  return stageBlock(fig, BROWSER_ENGINES, stages);
}

function nativeBlock(fig) {
  return stageBlock(fig, NATIVE_ENGINES, ['encode', 'cached_step', 'last_step', 'greedy', 'greedy_uncached', 'full_redecode', 'forward']);
}

function ratiosBlock(fig) {
  const rows = [
    `| model | src tokens | out tokens | stage | attnscope CPU (wasm) ÷ onnxruntime-web | attnscope WebGPU (adapter ${fig.adapter() || '–'}) ÷ onnxruntime-web | onnxruntime-web without ÷ with its cache |`,
    '|---|---|---|---|---|---|---|',
  ];
  const stages = [
    ['encode', 'encode', 'encode'],
    ['cached_step', 'one cached step', null],
    ['greedy', 'greedy translation', 'greedy_uncached'],
  ];
  for (const model of MODELS) {
    for (const n of fig.lengths(model)) {
      for (const [stage, title, uncached] of stages) {
        const cpu = fig.ratio([CPU, stage], [WEB, stage], model, n);
        if (!cpu) continue;
        const gpu = fig.ratio([GPU, stage], [WEB, stage], model, n);
        const reference = uncached && fig.ratio([WEB_NOCACHE, uncached], [WEB, stage], model, n);
        rows.push(
          `| ${model} | ${n} | ${fig.get(CPU, model, stage, n).out} | ${title} | ${spread(cpu)} | ${spread(gpu)} | ${spread(reference)} |`,
        );
      }
    }
  }
  return rows.join('\n');
}

/** The spread over runs of one figure per run: `median (min–max, N runs)`. */
function overRuns(values, unit = ' ms') {
  if (!values.length) return '–';
  const m = `${ms(median(values))}${unit}`;
  return values.length > 1 ? `${m} (${ms(Math.min(...values))}–${ms(Math.max(...values))}, ${values.length} runs)` : m;
}

/** Cost per output token, one figure per run (page load): greedy ÷ out tokens, or the mean cached step. */
function perToken(fig, engine, model, n, measure) {
  if (measure === 'cached_step') return fig.runs(engine, model, 'cached_step', n).map((r) => r.median_ms);
  return fig.runs(engine, model, 'greedy', n).map((r) => r.median_ms / r.out_tokens);
}

function baseConditions(results) {
  const meta = results.meta[BASE_RECORDS] || {};
  const m = meta.models?.[BASE];
  const c = m.config;
  const records = results.records.filter((r) => r.model === BASE);
  const loads = new Set(records.map((r) => r.run)).size;
  const gpuLengths = [...new Set(records.filter((r) => r.engine === GPU).map((r) => r.src_tokens))];
  return [
    ...(m.runs < 10 ? ['**A smoke run (fewer than 10 samples per measurement): check that it runs, do not quote it.**'] : []),
    `Generated by \`node benches/tables.mjs\` from \`benches/out/results.json\` (${results.generated.slice(0, 10)}, commit \`${results.commit}\`):`,
    `\`${BASE}\` (\`attnscope random base --max-len ${c.max_len}\`): d_model ${c.d_model}, ${c.n_heads} heads, ${c.n_encoder_layers}+${c.n_decoder_layers} layers, d_ff ${c.d_ff},`,
    `vocabulary ${c.src_vocab_size.toLocaleString('en')}, F16 weights computed in F32, English words borrowed from en-zh (its output is noise);`,
    `${loads} separate load${loads > 1 ? 's' : ''} of the bench page (\`node benches/browser.mjs benches/out/random-base-160\`), ${m.runs} samples per measurement after ${m.warmup} warm-up`,
    `(WebGPU: ${m.gpuRuns} after ${m.gpuWarmup} warm-up and the checked decode, source length${gpuLengths.length > 1 ? 's' : ''} ${gpuLengths.join(', ') || '–'});`,
    `Chromium ${meta.chromium || '–'}, onnxruntime-web ${meta.onnxruntimeWeb || '–'}.`,
    `A random model never chooses \`</s>\`, so **every engine decodes exactly ${m.outTokens} tokens** (out tokens):`,
    "onnxruntime-web's greedy loop stops there; attnscope's wasm API decodes to `</s>` or `max_len`, so it is given the",
    `${m.outTokens} greedy tokens (\`forceIds\`, the same cached steps as choosing them; each step's own top candidate is checked to be`,
    "that token, and onnxruntime-web's tokens to be the same). Greedy: encode and the cached steps (attnscope: `start` and",
    '`forceIds`, so two answers included); one cached step: the mean over the output; per output token: greedy ÷ out tokens.',
  ];
}

/** Section 7: the base size on every browser engine. */
function baseBlock(results, fig) {
  if (!results.meta[BASE_RECORDS]?.models?.[BASE]) {
    return `Not measured in this run: no \`benches/out/records/${BASE_RECORDS}.json\` (bench.sh's base-size browser stage).`;
  }
  const rows = [
    ...baseConditions(results),
    '',
    "| src tokens | out tokens | engine | encode | one cached step | greedy | per output token | greedy ÷ onnxruntime-web's |",
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const n of fig.lengths(BASE)) {
    for (const engine of [CPU, GPU, WEB]) {
      const greedy = fig.get(engine, BASE, 'greedy', n);
      if (!greedy) continue;
      const ratio = engine === WEB ? '–' : spread(fig.ratio([engine, 'greedy'], [WEB, 'greedy'], BASE, n));
      rows.push(
        `| ${n} | ${greedy.out} | ${label(engine, fig)} | ${cell(fig.get(engine, BASE, 'encode', n))} | ${cell(fig.get(engine, BASE, 'cached_step', n))} | ${cell(greedy)} | ${ms(greedy.median / greedy.out)} | ${ratio} |`,
      );
    }
  }
  if (!results.records.some((r) => r.model === BASE && r.engine === WEB)) rows.push('', 'onnxruntime-web: not measured in this run.');
  return rows.join('\n');
}

/** Section 8: cost per output token against source length, attnscope CPU and onnxruntime-web. */
function sweepBlock(results, fig) {
  const models = [BASE, 'en-zh'].filter((model) => results.records.some((r) => r.model === model && r.engine === CPU));
  if (!models.length) return 'Not measured in this run.';
  const outs = (model) => SWEEP_LENGTHS.map((n) => fig.get(CPU, model, 'greedy', n)?.out).filter(Boolean);
  const rows = [
    `Generated by \`node benches/tables.mjs\` from \`benches/out/results.json\` (${results.generated.slice(0, 10)}, commit \`${results.commit}\`),`,
    "the same records as sections 7 and 1 (their runs' conditions are stated there): per output token is each page load's",
    'median greedy translation ÷ its out tokens, and the mean cached step; median over loads (min–max).',
    ...models.map(
      (model) =>
        `${model}: out tokens ${outs(model).join(', ')} for the source lengths in turn${model === BASE ? ' (fixed)' : ' (its own translations, to `</s>`)'}.`,
    ),
    'WebGPU (SwiftShader) is left out: it is a CPU emulation, seconds a step at this size (section 7).',
    '',
    `| model | engine | per output token | ${SWEEP_LENGTHS.map((n) => `${n} src tokens`).join(' | ')} |`,
    `|---|---|---|${SWEEP_LENGTHS.map(() => '---').join('|')}|`,
  ];
  for (const model of models) {
    for (const engine of [CPU, WEB]) {
      for (const [measure, title] of [
        ['greedy', 'greedy ÷ out tokens'],
        ['cached_step', 'one cached step'],
      ]) {
        const cells = SWEEP_LENGTHS.map((n) => overRuns(perToken(fig, engine, model, n, measure)));
        if (cells.every((c) => c === '–')) continue;
        rows.push(`| ${model} | ${label(engine, fig)} | ${title} | ${cells.join(' | ')} |`);
      }
    }
  }
  rows.push('', `![Cost per output token against source length: attnscope CPU wasm and onnxruntime-web](${PLOT})`, '');
  rows.push(`\`benches/plot_cost.py\` draws it from \`benches/out/results.json\` (bench.sh's last stage).`);
  return rows.join('\n');
}

const BLOCKS = {
  run: ({ results }) => runBlock(results),
  'export-check': ({ results }) => exportCheckBlock(results),
  budgets: ({ results, fig }) => budgetsBlock(fig, results.page),
  ratios: ({ fig }) => ratiosBlock(fig),
  browser: ({ fig }) => browserBlock(fig),
  native: ({ fig }) => nativeBlock(fig),
  base: ({ results, fig }) => baseBlock(results, fig),
  sweep: ({ results, fig }) => sweepBlock(results, fig),
};

// docs/benchmarks.md's summary: the same budget table, so that page cannot drift either.
const BENCHMARKS_BLOCKS = {
  budgets: ({ results, fig }) =>
    `${budgetsBlock(fig, results.page)}\n\nFrom \`benches/out/results.json\` (${results.generated.slice(0, 10)}, commit \`${results.commit}\`); the conditions, the other tables and what each missed budget is made of: [benches/RESULTS.md](../benches/RESULTS.md).`,
};

function renderInto(file, blocks, context) {
  let text = readFileSync(file, 'utf8');
  for (const [name, block] of Object.entries(blocks)) {
    const open = `<!-- results:${name} -->`;
    const close = `<!-- /results:${name} -->`;
    const start = text.indexOf(open);
    const end = text.indexOf(close);
    if (start < 0 || end < start) throw new Error(`${relative(root, file)} has no ${open} … ${close}`);
    text = `${text.slice(0, start + open.length)}\n${block(context)}\n${text.slice(end)}`;
  }
  writeFileSync(file, text);
}

function render(results) {
  const context = { results, fig: figures(results) };
  renderInto(RESULTS_MD, BLOCKS, context);
  renderInto(BENCHMARKS_MD, BENCHMARKS_BLOCKS, context);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const from = process.argv.indexOf('--from');
  const results = from >= 0 ? JSON.parse(readFileSync(process.argv[from + 1], 'utf8')) : collect();
  render(results);
  console.log(
    `benches/RESULTS.md: ${Object.keys(BLOCKS).length} blocks, docs/benchmarks.md: ${Object.keys(BENCHMARKS_BLOCKS).length}, from ${results.records.length} records`,
  );
}
