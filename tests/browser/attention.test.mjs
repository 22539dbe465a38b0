// The page's pure matrix helpers, without a browser: attention sinks left out and renormalised,
// and a heatmap spec transposed. Expected values are worked out by hand.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { keepColumns, sinkColumns, withoutSinks } from '../../www/views/attention.js';
import { transposed } from '../../www/views/heatmap-spec.js';

const close = (actual, expected, what) => {
  assert.equal(actual.length, expected.length, `${what}: length`);
  actual.forEach((v, i) => {
    assert.ok(Math.abs(v - expected[i]) < 1e-6, `${what}[${i}]: ${v} ≠ ${expected[i]}`);
  });
};

test('withoutSinks leaves the sink columns out, renormalises each row and reports their share', () => {
  // [3, 3]; column 0 is the sink. The last row put everything on it: nothing is left to share.
  const values = Float32Array.from([0.5, 0.25, 0.25, 0.1, 0, 0.9, 1, 0, 0]);
  const { values: kept, keep, share } = withoutSinks(values, 3, 3, [0]);
  assert.deepEqual(keep, [1, 2]);
  close(kept, [0.5, 0.5, 0, 1, 0, 0], 'renormalised');
  assert.ok(Math.abs(share - (0.5 + 0.1 + 1) / 3) < 1e-6, `share ${share}`);
  assert.ok(kept instanceof Float32Array, 'the same array type as the input');
  close(values, [0.5, 0.25, 0.25, 0.1, 0, 0.9, 1, 0, 0], 'the input is left as it was');
});

test('withoutSinks with two sinks, with none, and without rows', () => {
  // [2, 4]; columns 0 and 3 are sinks.
  const values = Float32Array.from([0.2, 0.3, 0.1, 0.4, 0, 0.25, 0.75, 0]);
  const two = withoutSinks(values, 2, 4, [3, 0]);
  assert.deepEqual(two.keep, [1, 2]);
  close(two.values, [0.75, 0.25, 0.25, 0.75], 'two sinks');
  assert.ok(Math.abs(two.share - (0.6 + 0) / 2) < 1e-6, `share ${two.share}`);
  const none = withoutSinks(values, 2, 4, []);
  close(none.values, [...values], 'no sinks: rows already sum to 1');
  assert.equal(none.share, 0);
  const empty = withoutSinks(new Float32Array(0), 0, 4, [0]);
  assert.equal(empty.values.length, 0);
  assert.equal(empty.share, 0);
});

test('sinkColumns finds <s> and </s> by id on each kind’s key axis', () => {
  const special = { bosId: 2, eosId: 3 };
  // Source "a b </s>"; target "<s> x y </s>", with three decoder rows (the last token not fed in).
  const trace = { srcIds: [5, 6, 3], tgtIds: Uint32Array.from([2, 7, 8, 3]), decoderSelfAttention: { keys: 3 } };
  assert.deepEqual(sinkColumns(trace, 'encoderSelf', special), [2]);
  assert.deepEqual(sinkColumns(trace, 'cross', special), [2]);
  assert.deepEqual(sinkColumns(trace, 'decoderSelf', special), [0]);
});

test('keepColumns keeps the type and the order asked for', () => {
  const mask = Uint8Array.from([1, 0, 0, 1, 1, 0]); // [2, 3]
  const kept = keepColumns(mask, 2, 3, [2, 0]);
  assert.ok(kept instanceof Uint8Array);
  assert.deepEqual([...kept], [0, 1, 0, 1]);
});

test('transposed swaps sizes, values, mask, labels, sides, index mappings and titles', () => {
  const produced = (i) => i + 1;
  const spec = {
    rows: 2,
    cols: 3,
    values: Float32Array.from([9, 1, 2, 3, 4, 5, 6]), // offset 1: [[1, 2, 3], [4, 5, 6]]
    offset: 1,
    mask: Uint8Array.from([0, 0, 1, 0, 0, 0]),
    rowLabels: ['x', 'y'],
    colLabels: ['a', 'b', 'c'],
    rowSide: 'tgt',
    colSide: 'src',
    rowIndex: produced,
    rowTitle: { role: 'query', tokens: 'target' },
    colTitle: { role: 'key', tokens: 'source' },
    legendLabel: 'kept as it is',
  };
  const t = transposed(spec);
  assert.equal(t.rows, 3);
  assert.equal(t.cols, 2);
  assert.equal(t.offset, 0);
  assert.deepEqual([...t.values], [1, 4, 2, 5, 3, 6]);
  assert.deepEqual([...t.mask], [0, 0, 0, 0, 1, 0]);
  assert.deepEqual(t.rowLabels, ['a', 'b', 'c']);
  assert.deepEqual(t.colLabels, ['x', 'y']);
  assert.equal(t.rowSide, 'src');
  assert.equal(t.colSide, 'tgt');
  assert.equal(t.colIndex, produced);
  assert.equal(t.rowIndex, undefined);
  assert.deepEqual(t.rowTitle, spec.colTitle);
  assert.equal(t.transposed, true);
  assert.equal(t.legendLabel, 'kept as it is');
  const back = transposed(t);
  assert.deepEqual([...back.values], [1, 2, 3, 4, 5, 6]);
  assert.deepEqual([...back.mask], [...spec.mask]);
  assert.equal(back.transposed, false);
});
