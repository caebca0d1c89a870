// A model directory with the compute of a small sentence-embedding transformer (the shape of
// multilingual-e5-small and all-MiniLM-L12: 12 layers, 384 wide, 12 heads, feed-forward 1536,
// a 512-token window) and random weights, for BENCH_STEP=call-size BENCH_MODEL=transformer: the
// vectors mean nothing, but each call costs what that model's would for the same tokens, so
// batching is measured on an attention model without downloading one. Its tokenizer is the tests'
// WordPiece (test/helpers/onnxModel.ts) with that model's window: a word it does not know is one
// [UNK] token, about one token a word, as a real vocabulary's ~1.3.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeOnnxTestModel } from '../../test/helpers/onnxModel.js';
import { FLOAT, INT64, initializer, model, node, stringField, valueInfo } from '../../test/helpers/onnxProto.js';

const HIDDEN = 384;
const HEADS = 12;
const FEED_FORWARD = 1536;
const LAYERS = 12;
const WINDOW = 512;

/** Writes the directory (model.onnx, tokenizer and configs) and returns its path. */
export function writeTransformerModel(dir: string): string {
  writeOnnxTestModel(dir);
  const vocabSize = Object.keys(JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')).model.vocab).length;
  writeFileSync(join(dir, 'model.onnx'), transformer(vocabSize));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ model_max_length: WINDOW, do_lower_case: true }));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', hidden_size: HIDDEN, max_position_embeddings: WINDOW }));
  return dir;
}

/** Weights of N(0, 0.02²)-like spread from a fixed seed (their values do not change a call's cost). */
function weights(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed >>> 0;
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = (s / 2 ** 32 - 0.5) * 0.07;
  }
  return out;
}

function transformer(vocabSize: number): Uint8Array {
  const graph: Buffer[] = [];
  let seed = 1;
  const float = (name: string, dims: number[], values?: number[]) => {
    graph.push(initializer(name, dims, values ? Float32Array.from(values) : weights(dims.reduce((a, b) => a * b, 1), seed++)));
    return name;
  };
  const int64 = (name: string, dims: number[], values: number[]) => graph.push(initializer(name, dims, BigInt64Array.from(values.map(BigInt))));
  const op = (type: string, inputs: string[], output: string, attributes = {}) => {
    graph.push(node(type, inputs, output, attributes));
    return output;
  };
  const headWidth = HIDDEN / HEADS;
  float('ones', [HIDDEN], new Array(HIDDEN).fill(1));
  float('zeros', [HIDDEN], new Array(HIDDEN).fill(0));
  for (const [name, value] of [['scale', 1 / Math.sqrt(headWidth)], ['masked', -10000], ['one_f', 1], ['half', 0.5], ['rsqrt2', Math.SQRT1_2]] as const) float(name, [], [value]);
  int64('split_heads', [4], [0, 0, HEADS, headWidth]);
  int64('merge_heads', [3], [0, 0, HIDDEN]);
  int64('zero', [], [0]);
  int64('one', [], [1]);
  int64('axes_1_2', [2], [1, 2]);
  const norm = (input: string, output: string) => op('LayerNormalization', [input, 'ones', 'zeros'], output, { axis: 2, epsilon: { float: 1e-12 } });
  const linear = (input: string, from: number, to: number, name: string) =>
    op('Add', [op('MatMul', [input, float(`${name}.w`, [from, to])], `${name}.mm`), float(`${name}.b`, [to])], name);

  // Word and position embeddings; padding positions get a large negative attention bias.
  op('Range', ['zero', op('Gather', [op('Shape', ['input_ids'], 'ids_shape'), 'one'], 'length', { axis: 0 }), 'one'], 'positions');
  op('Add', [op('Gather', [float('words', [vocabSize, HIDDEN]), 'input_ids'], 'word_vectors'), op('Gather', [float('places', [WINDOW, HIDDEN]), 'positions'], 'place_vectors')], 'embedded');
  let x = norm('embedded', 'x0');
  op('Unsqueeze', [op('Mul', [op('Sub', ['one_f', op('Cast', ['attention_mask'], 'mask_f', { to: FLOAT })], 'unmasked'), 'masked'], 'bias_2d'), 'axes_1_2'], 'bias');
  for (let l = 0; l < LAYERS; l++) {
    const p = `l${l}.`;
    const heads = (name: string, perm: number[]) => op('Transpose', [op('Reshape', [linear(x, HIDDEN, HIDDEN, p + name), 'split_heads'], `${p}${name}.split`)], `${p}${name}.heads`, { perm });
    const scores = op('Add', [op('Mul', [op('MatMul', [heads('q', [0, 2, 1, 3]), heads('k', [0, 2, 3, 1])], `${p}qk`), 'scale'], `${p}scaled`), 'bias'], `${p}scores`);
    const context = op('MatMul', [op('Softmax', [scores], `${p}attention`, { axis: 3 }), heads('v', [0, 2, 1, 3])], `${p}context`);
    const merged = op('Reshape', [op('Transpose', [context], `${p}context.t`, { perm: [0, 2, 1, 3] }), 'merge_heads'], `${p}merged`);
    const attended = norm(op('Add', [linear(merged, HIDDEN, HIDDEN, `${p}out`), x], `${p}residual1`), `${p}x1`);
    // GELU as BERT computes it: x · (1 + erf(x / √2)) / 2.
    const up = linear(attended, HIDDEN, FEED_FORWARD, `${p}up`);
    const gelu = op('Mul', [op('Mul', [up, op('Add', [op('Erf', [op('Mul', [up, 'rsqrt2'], `${p}g0`)], `${p}g1`), 'one_f'], `${p}g2`)], `${p}g3`), 'half'], `${p}gelu`);
    x = norm(op('Add', [linear(gelu, FEED_FORWARD, HIDDEN, `${p}down`), attended], `${p}residual2`), `${p}x2`);
  }
  op('Identity', [x], 'last_hidden_state');
  return model([
    ...graph, stringField(2, 'transformer'),
    valueInfo(11, 'input_ids', INT64, ['batch', 'sequence']),
    valueInfo(11, 'attention_mask', INT64, ['batch', 'sequence']),
    valueInfo(12, 'last_hidden_state', FLOAT, ['batch', 'sequence', HIDDEN]),
  ], 17);
}
