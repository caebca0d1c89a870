// The lines a serve process found valid lately (domain/checkedLines.ts): two generations, a line
// found in the older moving to the newer, nothing kept beyond them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CheckedLines } from '../../src/domain/checkedLines.js';

const line = (text: string) => Buffer.from(text);

test('a line is known by its exact bytes, with the external_id it was recorded with', () => {
  const checked = new CheckedLines(10);
  const key = checked.keyOf(line('{"title":"A","external_id":"a"}'));
  assert.equal(checked.externalIdOf(key), undefined);
  checked.add(key, 'a');
  assert.equal(checked.externalIdOf(checked.keyOf(line('{"title":"A","external_id":"a"}'))), 'a');
  assert.equal(checked.externalIdOf(checked.keyOf(line('{"title":"A","external_id":"a"} '))), undefined, 'one byte more is another line');
  const anonymous = checked.keyOf(line('{"title":"B"}'));
  checked.add(anonymous, '');
  assert.equal(checked.externalIdOf(anonymous), '', 'none is remembered as the empty string');
});

test('between one and two generations of lines are kept; a line used again survives the turn of generation', () => {
  const checked = new CheckedLines(3);
  const keys = Array.from({ length: 7 }, (_, i) => checked.keyOf(line(`{"n":${i}}`)));
  for (const key of keys.slice(0, 3)) checked.add(key, '');
  checked.add(keys[3], ''); // the first three become the older generation
  assert.equal(checked.externalIdOf(keys[0]), '', 'found in the older generation, and moved to the newer');
  checked.add(keys[4], ''); // the newer is full (3, 0, 4)
  checked.add(keys[5], ''); // the older (1, 2) is dropped
  assert.equal(checked.externalIdOf(keys[1]), undefined);
  assert.equal(checked.externalIdOf(keys[2]), undefined);
  for (const k of [0, 3, 4, 5]) assert.equal(checked.externalIdOf(keys[k]), '', `line ${k}`);
  assert.equal(checked.externalIdOf(keys[6]), undefined);
});
