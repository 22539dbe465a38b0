// What benches/tables.mjs renders from: benches/out/records/*.json (browser.mjs, ort_native.py),
// the native attnscope tables of benches/out/native-N.md (`cargo bench --bench native`), each
// model's export check (benches/out/MODEL/export.json, or FOLDER/onnx/export.json for a model
// folder under benches/out) and the page benches' files, gathered into benches/out/results.json:
// { generated, commit, meta, checks, records, page }, one record per measurement: engine, model,
// stage, src_tokens, out_tokens, median_ms, p95_ms, runs (samples), run (which page load or process).
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { collectPage, shippedModels } from './budgets.mjs';
import { NATIVE } from './figures.mjs';

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

/** Gather every record under `out` into `out`/results.json; `root` is the git checkout. */
export function collect(root, out) {
  const results = { generated: new Date().toISOString(), commit: null, meta: {}, checks: {}, records: [] };
  try {
    results.commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
  } catch {
    // not a git checkout: no commit
  }
  const dir = join(out, 'records');
  for (const name of existsSync(dir) ? readdirSync(dir).sort() : []) {
    if (!name.endsWith('.json')) continue;
    const file = JSON.parse(readFileSync(join(dir, name), 'utf8'));
    results.meta[name.replace(/\.json$/, '')] = file.meta;
    results.records.push(...file.records);
  }
  // bench.sh runs the native bench REPEATS times: native-1.md, native-2.md, … (native.md: one run).
  const nativeRuns = readdirSync(out)
    .filter((name) => /^native-\d+\.md$/.test(name))
    .sort((a, b) => Number.parseInt(a.slice(7), 10) - Number.parseInt(b.slice(7), 10));
  if (!nativeRuns.length && existsSync(join(out, 'native.md'))) nativeRuns.push('native.md');
  nativeRuns.forEach((name, i) => {
    results.records.push(...nativeRecords(readFileSync(join(out, name), 'utf8'), i + 1));
  });
  for (const model of shippedModels()) {
    const file = join(out, model, 'export.json');
    if (existsSync(file)) results.checks[model] = JSON.parse(readFileSync(file, 'utf8')).check;
  }
  for (const folder of readdirSync(out).sort()) {
    const file = join(out, folder, 'onnx', 'export.json');
    if (!existsSync(file)) continue;
    const exported = JSON.parse(readFileSync(file, 'utf8'));
    if (exported.check) results.checks[exported.model] = exported.check;
  }
  results.page = collectPage(out);
  writeFileSync(join(out, 'results.json'), `${JSON.stringify(results, null, 1)}\n`);
  return results;
}
