// The shared validator's whole-value scan: depth, lone surrogates, reserved keys and
// non-finite numbers, without recursion, whatever the schema says about the value.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@sinclair/typebox';
import { surrogateFreeJson } from '../../src/schemas/surrogateFreeJson.js';
import { validate, validationErrors } from '../../src/schemas/validate.js';
import { MAX_DEPTH } from '../../src/schemas/valueShape.js';

const Free = Type.Object({ data: Type.Optional(Type.Record(Type.String(), Type.Unknown())), name: Type.Optional(Type.String({ maxLength: 3 })) });

/** `levels` arrays nested inside each other, built without recursion. */
function nested(levels: number): unknown[] {
  const root: unknown[] = [];
  let inner = root;
  for (let i = 1; i < levels; i++) {
    const next: unknown[] = [];
    inner.push(next);
    inner = next;
  }
  return root;
}

test('a million levels of nesting are one error at the first level too deep, not a stack overflow', () => {
  const errors = validationErrors(Free, { data: { x: nested(1_000_000) } }, { root: 'body' });
  const loc = ['body', 'data', 'x', ...Array<number>(MAX_DEPTH - 2).fill(0)];
  assert.deepEqual(errors, [{ loc, msg: `Value error, nesting deeper than ${MAX_DEPTH} levels`, type: 'value_error' }]);
});

test('exactly the maximum depth is valid', () => {
  assert.equal(validationErrors(Free, { data: { x: nested(MAX_DEPTH - 2) } }, { root: 'body' }), null);
});

test('errors come in document order; a value refused by the scan is not reported twice', () => {
  const value = JSON.parse('{"name":"\\udfffabcd","data":{"prototype":1,"k\\ud800":[1e400]}}');
  assert.deepEqual(validationErrors(Free, value, { root: 'body' }), [
    { loc: ['body', 'name'], msg: 'Input should be a valid string, unable to parse raw data as a unicode string', type: 'string_unicode' },
    { loc: ['body', 'data', 'prototype'], msg: "Value error, the key 'prototype' is reserved", type: 'value_error' },
    { loc: ['body', 'data', 'k\ud800'], msg: 'Input should be a valid string, unable to parse raw data as a unicode string', type: 'string_unicode' },
    { loc: ['body', 'data', 'k\ud800', 0], msg: 'Input should be a finite number', type: 'finite_number' },
  ]);
});

test('a JSON __proto__ key is refused and never becomes a prototype', () => {
  const value = JSON.parse('{"data":{"__proto__":{"polluted":true}}}');
  const result = validate(Free, value, { root: 'body' });
  assert.equal(result.ok, false);
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});

test('surrogate pairs are characters: counted once, accepted', () => {
  assert.deepEqual(validate(Free, { name: '😀😀😀', data: { '😀': '😀' } }, { root: 'body' }), { ok: true, value: { name: '😀😀😀', data: { '😀': '😀' } } });
});

test('surrogateFreeJson: false wherever the parsed text could hold a surrogate, true for text that cannot', () => {
  const free = (text: string | Buffer) => surrogateFreeJson(Buffer.isBuffer(text) ? text : Buffer.from(text, 'utf8'));
  assert.equal(free('{"a":"plain é ß 中"}'), true, 'non-ASCII within the BMP');
  assert.equal(free('{"a":"caf\\u00e9 \\u4e2d \\uFFFD \\ud7ff \\ue000"}'), true, 'escapes of BMP characters that are no surrogates');
  for (const escape of ['\\ud800', '\\uD800', '\\udfff', '\\uDBFF', '\\uDc00', '\\ud83d\\ude00']) {
    assert.equal(free(`{"a":"x${escape}"}`), false, escape);
    assert.equal(free(`{"${escape}":1}`), false, `${escape} in a key`);
  }
  assert.equal(free('{"a":"😀"}'), false, 'a character outside the BMP (a surrogate pair once parsed)');
  assert.equal(free(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d])), true, 'an encoded surrogate is invalid UTF-8: it parses to U+FFFD');
  assert.equal(free('{"a":"\\\\ud800"}'), false, 'an escaped backslash before ud800 only makes it look again (no surrogate, full check)');
});

test('surrogateFree skips the per-string checks only: depth, reserved keys and finite numbers are still checked', () => {
  const options = { root: 'body', surrogateFree: true };
  assert.deepEqual(validationErrors(Free, { data: { __proto__x: 1, constructor: 1 } }, options), [
    { loc: ['body', 'data', 'constructor'], msg: "Value error, the key 'constructor' is reserved", type: 'value_error' },
  ]);
  assert.deepEqual(validationErrors(Free, { data: { x: Infinity } }, options), [{ loc: ['body', 'data', 'x'], msg: 'Input should be a finite number', type: 'finite_number' }]);
  assert.equal(validationErrors(Free, { name: 'abc' }, options), null);
  assert.equal(validationErrors(Free, { name: 'abcd' }, options)?.[0].type, 'string_too_long');
});
