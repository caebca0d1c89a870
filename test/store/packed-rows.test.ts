// The rows of a script call packed into one MessagePack argument (src/store/packedRows.ts), read
// back by a real redis-server's Lua (`cmsgpack.unpack`): each value arrives as the string an
// argument of its own would have been.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { packRows, type PackedValue } from '../../src/store/packedRows.js';
import { privateRedis } from './privateRedis.js';

const redis = privateRedis();

/** Every value of the packed array as Lua sees it: its type and its text. */
async function unpacked(values: PackedValue[]): Promise<{ types: string[]; texts: string[] }> {
  const reply = (await redis.eval(
    `local t = cmsgpack.unpack(ARGV[1]) local out = {} for i = 1, #t do out[2 * i - 1] = type(t[i]) out[2 * i] = t[i] end return out`,
    0,
    packRows(values),
  )) as string[];
  return { types: reply.filter((_, i) => i % 2 === 0), texts: reply.filter((_, i) => i % 2 === 1) };
}

test('strings, numbers and bytes arrive as the strings their own arguments would be', async () => {
  const long = `${'ä'.repeat(50)}${'x'.repeat(70_000)}`;
  const values: PackedValue[] = ['', 'sku-1', 'grüße €', 'emoji 😀 and more', 0, 17, 1_700_000_000_123, -2.5, Buffer.from('{"a":"ö"}'), long, 'x'.repeat(96), 'ü'.repeat(96)];
  const { types, texts } = await unpacked(values);
  assert.deepEqual(types, values.map(() => 'string'));
  assert.deepEqual(texts, values.map((v) => (Buffer.isBuffer(v) ? v.toString('utf8') : String(v))));
});

test('an empty array, and one of more values than a 16-bit MessagePack array holds', async () => {
  assert.deepEqual((await unpacked([])).texts, []);
  const many = Array.from({ length: 70_000 }, (_, i) => (i % 3 === 0 ? i : `v${i}`));
  const count = await redis.eval(`local t = cmsgpack.unpack(ARGV[1]) return {#t, t[1], t[2], t[70000]}`, 0, packRows(many));
  assert.deepEqual(count, [70_000, '0', 'v1', '69999']);
});

test('many short non-ASCII values in one call (each grows the room it needs)', async () => {
  const values: PackedValue[] = Array.from({ length: 2_000 }, (_, i) => (i % 2 === 0 ? `Größe-${i}-€` : `sku-${i}`));
  const { texts } = await unpacked(values);
  assert.deepEqual(texts, values);
});
