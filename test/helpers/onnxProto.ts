// A minimal protobuf writer, enough for the ONNX ModelProto of the tests' tiny model
// (onnxModel.ts).
// Field numbers are those of onnx.proto3. Parts are Buffers, so a weight tensor of tens of
// megabytes is copied, not spread into arrays of numbers.

export const FLOAT = 1;
export const INT64 = 7;

type Part = Buffer;

const varint = (n: number): Part => {
  const out: number[] = [];
  let v = n;
  do {
    let byte = v & 0x7f;
    v = Math.floor(v / 128);
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return Buffer.from(out);
};
const tag = (field: number, wire: number) => varint((field << 3) | wire);
const bytesField = (field: number, data: Uint8Array): Part => Buffer.concat([tag(field, 2), varint(data.length), data]);
export const stringField = (field: number, s: string): Part => bytesField(field, Buffer.from(s, 'utf8'));
/** A non-negative integer (the writer has no negative varints). */
const intField = (field: number, n: number): Part => Buffer.concat([tag(field, 0), varint(n)]);
const floatField = (field: number, x: number): Part => Buffer.concat([tag(field, 5), new Uint8Array(Float32Array.of(x).buffer)]);
const message = (field: number, parts: Part[]): Part => bytesField(field, Buffer.concat(parts));

const dimension = (d: number | string) => message(1, [typeof d === 'number' ? intField(1, d) : stringField(2, d)]);
/** A graph input (field 11) or output (field 12). */
export const valueInfo = (field: number, name: string, elemType: number, dims: (number | string)[]): Part =>
  message(field, [stringField(1, name), message(2, [message(1, [intField(1, elemType), message(2, dims.map(dimension))])])]);

/** A graph initializer (field 5): float32 or int64 values of the given shape ([] for a scalar). */
export function initializer(name: string, dims: number[], values: Float32Array | BigInt64Array): Part {
  const type = values instanceof Float32Array ? FLOAT : INT64;
  return message(5, [...dims.map((d) => intField(1, d)), intField(2, type), stringField(8, name), bytesField(9, new Uint8Array(values.buffer, values.byteOffset, values.byteLength))]);
}

/** Attribute values: an integer, a float, or a list of integers. */
export type Attribute = number | { float: number } | number[];

const ATTRIBUTE_INT = 2;
const ATTRIBUTE_FLOAT = 1;
const ATTRIBUTE_INTS = 7;

function attribute(name: string, value: Attribute): Part {
  if (Array.isArray(value)) return message(5, [stringField(1, name), ...value.map((v) => intField(8, v)), intField(20, ATTRIBUTE_INTS)]);
  if (typeof value === 'number') return message(5, [stringField(1, name), intField(3, value), intField(20, ATTRIBUTE_INT)]);
  return message(5, [stringField(1, name), floatField(2, value.float), intField(20, ATTRIBUTE_FLOAT)]);
}

/** A graph node (field 1). */
export function node(op: string, inputs: string[], output: string, attributes: Record<string, Attribute> = {}): Part {
  return message(1, [
    ...inputs.map((i) => stringField(1, i)), stringField(2, output), stringField(3, output), stringField(4, op),
    ...Object.entries(attributes).map(([name, value]) => attribute(name, value)),
  ]);
}

/** A ModelProto: ir_version 8, the graph, the default domain's opset. */
export function model(graph: Part[], opset: number): Uint8Array {
  return Buffer.concat([intField(1, 8), stringField(2, 'kcs-tests'), message(7, graph), message(8, [stringField(1, ''), intField(2, opset)])]);
}
