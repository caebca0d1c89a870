// Vectors as Redis stores them: IEEE 754 half precision (FLOAT16), little-endian, two bytes a
// dimension. Half of float32's bytes in the hash and in the Query Engine's index (which reads the
// same blobs: schema.ts TYPE FLOAT16); its 11 significant bits keep a unit vector's cosine
// similarities to about 1e-3, well inside what ranking tells apart (bench:search measures recall).
// The built-in engine reads them back into float32.

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** One float32 as float16 bits, rounded to nearest even; out of range to ±infinity, below it to zero or a subnormal. */
function halfBits(value: number): number {
  f32[0] = value;
  const x = u32[0];
  const sign = (x >>> 16) & 0x8000;
  const exponent = (x >>> 23) & 0xff;
  let mantissa = x & 0x7fffff;
  if (exponent === 0xff) return sign | 0x7c00 | (mantissa ? 0x200 : 0);
  const e = exponent - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign;
    mantissa |= 0x800000;
    const shift = 14 - e;
    const half = mantissa >>> shift;
    const rest = mantissa & ((1 << shift) - 1);
    const halfway = 1 << (shift - 1);
    return sign | (half + (rest > halfway || (rest === halfway && half & 1) ? 1 : 0));
  }
  const half = (e << 10) | (mantissa >>> 13);
  const rest = mantissa & 0x1fff;
  // A carry out of the mantissa moves the exponent up, as it should.
  return sign | (half + (rest > 0x1000 || (rest === 0x1000 && half & 1) ? 1 : 0));
}

/** float16 bits as a number. */
function fromHalf(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >>> 10) & 0x1f;
  const mantissa = h & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (1 + mantissa / 1024) * 2 ** (exponent - 15);
}

export const BYTES_PER_DIMENSION = 2;

/** Every float16 as a float32: a replica decodes a million vectors at start. */
let decoded: Float32Array | null = null;
function decodeTable(): Float32Array {
  if (!decoded) {
    decoded = new Float32Array(0x10000);
    for (let h = 0; h < 0x10000; h++) decoded[h] = fromHalf(h);
  }
  return decoded;
}

// Typed arrays in the machine's byte order, little-endian on every platform Node runs on here (x86, ARM).
export function toBytes(vector: Float32Array): Buffer {
  const halves = new Uint16Array(vector.length);
  for (let i = 0; i < vector.length; i++) halves[i] = halfBits(vector[i]);
  return Buffer.from(halves.buffer);
}

export function fromBytes(bytes: Buffer): Float32Array {
  const halves = new Uint16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const table = decodeTable();
  const out = new Float32Array(halves.length);
  for (let i = 0; i < halves.length; i++) out[i] = table[halves[i]];
  return out;
}

/** A vector as float32 bytes, exactly as the model gave it: the embedding cache's values, and vectors stored before FLOAT16. */
export const float32Bytes = (vector: Float32Array): Buffer => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
export const fromFloat32Bytes = (bytes: Buffer): Float32Array =>
  new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
