// Vectors as Redis stores them: float32, little-endian as the machine lays them out (x86, ARM).
export const toBytes = (vector: Float32Array): Buffer => Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength);
export const fromBytes = (bytes: Buffer): Float32Array =>
  new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
