// Hostile values for the HTTP fuzz test, and the encoders that put them on the wire unchanged:
// JSON text with raw number literals and deep nesting, percent-encoding of lone surrogates
// (WTF-8 bytes, invalid UTF-8), and header values as the bytes Node lets through.
import fc from 'fast-check';

/** JSON text put into a body verbatim: numbers JSON.stringify cannot write, nesting too deep to build as objects. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** A reference to a fixture id (src of truth: the runner's ids), resolved when the case is sent. */
export class Ref {
  constructor(readonly name: string) {}
}

export const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];

const LONE_SURROGATES = ['\ud800', '\udfff', 'x\udfff', '\udfffx', 'a\ud83d', '\udc00\ud800'];
const NUMERIC_STRINGS = [
  '99999999999999999999', '1e308', '-1e308', '1e-400', '1e400', '-0', '0x10', 'NaN', 'Infinity', '-Infinity', '1.5', '-1',
  ' 1', '1_000', '٣', '１', '0'.repeat(400) + '1', '9'.repeat(400), '-9007199254740993', '.5', '5.', '+1', '1e', '0e0',
];
/** Characters that mean something to a query language, a glob, a regex or a path. */
const SYNTAX = ['*', '?', '@', '-', '\\', '{', '}', '(', ')', '|', '"', "'", '~', '%', ':', ';', '$', '^', '[', ']', '!', '<', '>', '=', '&', '#', '/', '..', '../..', '@f:{x}', '-@a:[1 2]', '%00', '%zz', '%'];
const ODD_TEXT = [
  '', ' ', 'null', 'true', 'false', '[]', '{}', 'undefined', '😀', 'Ä', 'ﬁ', 'İ', 'ß', 'ǅ', '\u0301', 'a\u0000b', '<script>alert(1)</script>',
  "' OR 1=1 --", 'kcs_', 'kcs_at_', 'Bearer', '2026-02-30T00:00:00Z', '0000-00-00T00:00', '9999-12-31T23:59:59Z', '-000001-01-01T00:00:00Z',
  '00000000-0000-0000-0000-000000000000', 'FFFFFFFF-FFFF-4FFF-BFFF-FFFFFFFFFFFF', 'http://[::1', 'javascript:alert(1)', 'https://x/#frag',
];
const CONTROL = ['\u0000', '\u0001', '\u0007', '\b', '\t', '\n', '\u000b', '\f', '\r', '\u001b', '\u007f', '\u0085', '\u2028', '\u2029', '\ufeff'];

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...LONE_SURROGATES, ...NUMERIC_STRINGS, ...PROTO_KEYS, ...SYNTAX, ...ODD_TEXT),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: fc.constantFrom(...CONTROL, 'a', ' '), maxLength: 20 }),
  fc.string({ unit: fc.constantFrom('a', 'é', '\ud800', '\udc00', '\udfff', '😀', ' ', '-'), minLength: 1, maxLength: 20 }),
  fc.tuple(fc.constantFrom('a', 'é', '😀', '\udfff', ' ', '-', '9'), fc.constantFrom(64, 101, 256, 501, 2001, 70_000)).map(([c, n]) => c.repeat(n)),
);

const RAW_NUMBERS = [
  '99999999999999999999', '1e308', '1e400', '-1e400', '-0', '0.0000000000000000000001', '1E+2', '123456789012345678901234567890.5',
  '-9007199254740993', '4.9e-324', '1.0', '1e-7', '-1', '2.5', '100000000000000000000000000000000000000000',
];
export const hostileNumber: fc.Arbitrary<number | RawJson> = fc.oneof(
  fc.constantFrom(0, -1, 1.5, 2 ** 31, 2 ** 53, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, Number.MAX_VALUE, Number.MIN_VALUE, -Number.MAX_VALUE, 1e308, 5e-324),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(...RAW_NUMBERS).map((text) => new RawJson(text)),
);

/** Arrays or objects nested a few thousand deep (a few KiB of text: within the body limit). */
export const deepNesting: fc.Arbitrary<RawJson> = fc
  .tuple(fc.constantFrom(100, 1000, 3000, 6000), fc.constantFrom('array', 'object', 'mixed'))
  .map(([depth, shape]) => {
    if (shape === 'array') return new RawJson('['.repeat(depth) + ']'.repeat(depth));
    if (shape === 'object') return new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
    return new RawJson('[{"a":'.repeat(depth) + 'null' + '}]'.repeat(depth));
  });

/** An object whose own keys include __proto__ and friends (computed keys make them own properties). */
export const protoObject: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(fc.constantFrom(...PROTO_KEYS), fc.oneof(fc.constant({ polluted: true }), fc.constant(null), fc.constant('x'), fc.constant([])))
  .map(([key, value]) => ({ [key]: value, ok: 1 }));

const scalar: fc.Arbitrary<unknown> = fc.oneof(hostileString, hostileNumber, fc.boolean(), fc.constant(null));

/** Any JSON value, hostile at every level: wrong types, odd keys, deep nesting. */
export const hostileJson: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(hostileString, scalar, { maxKeys: 4 }) },
  { weight: 1, arbitrary: protoObject },
  { weight: 1, arbitrary: deepNesting },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.constantFrom([], {}, [[]], [{}], '', 0) },
);

/** JSON text of a value that may hold RawJson pieces. Own `__proto__` keys are written like any key. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).map((k) => `${JSON.stringify(k)}:${toJsonText((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** WTF-8: UTF-8 that also encodes lone surrogates (as invalid 3-byte sequences), so they reach the server as sent. */
export function wtf8(text: string): Buffer {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    const next = text.charCodeAt(i + 1);
    if (cp >= 0xd800 && cp < 0xdc00 && next >= 0xdc00 && next < 0xe000) {
      cp = 0x10000 + ((cp - 0xd800) << 10) + (next - 0xdc00);
      i++;
    }
    if (cp < 0x80) bytes.push(cp);
    else if (cp < 0x800) bytes.push(0xc0 | (cp >> 6), 0x80 | (cp & 63));
    else if (cp < 0x10000) bytes.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
    else bytes.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63));
  }
  return Buffer.from(bytes);
}

/** Percent-encodes everything but unreserved characters, lone surrogates as their WTF-8 bytes. */
export const percentEncode = (text: string): string =>
  [...wtf8(text)].map((b) => (/[A-Za-z0-9._~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');

/** A header value Node will send: the WTF-8 bytes as latin1, without the control characters it refuses. */
export const headerSafe = (text: string): string => wtf8(text).toString('latin1').replace(/[^\t\x20-\x7e\x80-\xff]/g, '');

/** Odd encodings of a path segment or query value, beyond percent-encoding a hostile string. */
export const oddEncoded: fc.Arbitrary<string> = fc.oneof(
  hostileString.filter((text) => text.length <= 5000).map(percentEncode),
  fc.constantFrom(
    '..', '.', '%2e%2e', '%2E%2E%2F', '..%2F..%2F', '%2F', '%5C', '%00', '%', '%zz', '%E0%A4%A', '%ED%A0%80', '%C0%AE%C0%AE', '%FF%FE',
    '%25', '%2525', '+', '%20', 'a%0Ab', '%u002e', wtf8('😀').toString('latin1'), 'Ã©', '%E2%80%AE', 'a'.repeat(5000), '9'.repeat(40), '-1', '0', '1e3', '1.5',
  ),
);
