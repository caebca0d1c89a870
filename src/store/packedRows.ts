// The rows of a script call as one argument: a MessagePack array of strings, which the script
// reads with `cmsgpack.unpack` (built into every Redis's Lua since 2.6, Valkey's too). ioredis
// handles each argument of a command on its own (a string, its UTF-8 length taken three times, a
// buffer of its own); a 100-product writeProducts call has ~1,800 row values. Here they are written
// into one buffer, and redis-server parses one argument instead of ~1,800: the ingest worker spends
// a seventh less CPU a created product (`npm run bench:ingest`).

/** A row value: a string, a number (sent as its decimal string, as ioredis sends one) or bytes. */
export type PackedValue = string | number | Buffer;

/** MessagePack array 32 and str 32: a fixed header size, so a value is written before its length is known. */
const ARRAY32 = 0xdd;
const STR32 = 0xdb;
const HEADER = 5;
/** Strings up to this length are taken for ASCII first: ids, digests, refs. */
const SHORT = 96;
/** The longest decimal a JS number prints as (e.g. -1.2345678901234567e-300). */
const NUMBER_MAX = 24;

/**
 * `values` as a MessagePack array of str 32 values, each element in order; Lua receives each as
 * a string, exactly the bytes an argument of its own would have been.
 */
export function packRows(values: readonly PackedValue[]): Buffer {
  // Sized for short strings being ASCII, as row values nearly always are (a fresh buffer three
  // times too large costs its page faults); `size` stays the room every value needs at most, and
  // one that is not ASCII adds its extra bytes, growing the buffer by half at least when it must (a
  // catalogue's non-ASCII external_ids would otherwise copy it once per value).
  let size = HEADER;
  for (const value of values) {
    size += HEADER + (typeof value === 'string' ? (value.length > SHORT ? Buffer.byteLength(value) : value.length) : typeof value === 'number' ? NUMBER_MAX : value.length);
  }
  let out = Buffer.allocUnsafe(size);
  out[0] = ARRAY32;
  out.writeUInt32BE(values.length, 1);
  let at = HEADER;
  for (const value of values) {
    const start = at + HEADER;
    let length: number;
    if (typeof value === 'number') length = writeAscii(out, String(value), start);
    else if (typeof value !== 'string') length = value.copy(out, start);
    else if (value.length > SHORT) length = out.write(value, start, 'utf8');
    else {
      length = writeAscii(out, value, start);
      if (length < 0) {
        size += Buffer.byteLength(value) - value.length;
        if (size > out.length) {
          const grown = Buffer.allocUnsafe(Math.max(size, out.length + (out.length >> 1)));
          out.copy(grown, 0, 0, start);
          out = grown;
        }
        length = out.write(value, start, 'utf8');
      }
    }
    out[at] = STR32;
    out[at + 1] = length >>> 24;
    out[at + 2] = (length >>> 16) & 0xff;
    out[at + 3] = (length >>> 8) & 0xff;
    out[at + 4] = length & 0xff;
    at = start + length;
  }
  return out.subarray(0, at);
}

/** A short string copied by char code (~5× faster than a call into Buffer#write each); -1 where it is not ASCII. */
function writeAscii(out: Buffer, value: string, at: number): number {
  const n = value.length;
  for (let i = 0; i < n; i++) {
    const code = value.charCodeAt(i);
    if (code >= 0x80) return -1;
    out[at + i] = code;
  }
  return n;
}

/**
 * Strings as UTF-8 in one buffer, a slice each: for arguments of their own. ioredis takes a
 * string argument's UTF-8 length three times and copies it twice, a buffer's it just copies.
 */
export function utf8Slices(values: readonly string[]): Buffer[] {
  let size = 0;
  for (const value of values) size += Buffer.byteLength(value);
  const out = Buffer.allocUnsafe(size);
  const slices: Buffer[] = [];
  let at = 0;
  for (const value of values) {
    const length = out.write(value, at, 'utf8');
    slices.push(out.subarray(at, at + length));
    at += length;
  }
  return slices;
}
