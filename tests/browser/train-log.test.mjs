// The training log as the timeline view reads it (www/worker/training.js parseTrainLog): the loss of
// every optimizer step, two columns found by name in train_log.tsv. Plain Node: no page.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseTrainLog } from '../../www/worker/training.js';

const log = (text) => {
  const { steps, losses } = parseTrainLog(text);
  return [...steps].map((step, i) => [step, losses[i]]);
};

test("a shipped model's log: every line, in file order, each step's loss as an f32", () => {
  const text = readFileSync(new URL('../../models/en-zh/train_log.tsv', import.meta.url), 'utf8');
  const lines = text.trimEnd().split('\n');
  const rows = log(text);
  assert.equal(rows.length, lines.length - 1);
  assert.equal(rows.length, 26220);
  // The first and last lines, read here by hand: `step epoch loss lr seconds`.
  assert.equal(lines[1], '0\t0\t8.03030\t0.000001\t0.6');
  assert.deepEqual(rows[0], [0, Math.fround(8.0303)]);
  const [step, , loss] = lines.at(-1).split('\t');
  assert.deepEqual(rows.at(-1), [Number(step), Math.fround(Number(loss))]);
});

test('columns by name, in any order; blank, short and unreadable lines skipped; CRLF and spaces read', () => {
  assert.deepEqual(log('epoch\tloss\tstep\n1\t2.5\t3\n\n4\t5\n\t\t\n7\tx\t9\r\n1\t0.25\t30'), [
    [3, 2.5],
    [30, 0.25],
  ]);
  assert.deepEqual(log('step\tloss\r\n1\t2\r\n 5 \t 6 \n'), [
    [1, 2],
    [5, 6],
  ]);
  // An empty field reads as 0, as Number('') does.
  assert.deepEqual(log('loss\tstep\n\t4'), [[4, 0]]);
  assert.deepEqual(log('step\tepoch\tloss\n'), []);
  assert.deepEqual(log('step\tepoch\tloss'), []);
});

test('a log without a step or a loss column is refused by name', () => {
  assert.throws(() => parseTrainLog('epoch\tloss\n1\t2'), /train_log\.tsv has no step and loss columns/);
  assert.throws(() => parseTrainLog(''), /train_log\.tsv has no step and loss columns/);
});
