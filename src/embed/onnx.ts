// Any embedding model a user supplies as a directory laid out as Hugging Face exports it for ONNX
// (model.onnx or onnx/model.onnx, tokenizer.json, tokenizer_config.json, config.json), run
// in-process by onnxruntime-node: offline, in any language the model serves (e.g. a multilingual
// e5 or MiniLM). The token embeddings are mean-pooled over the attention mask, unless the model
// already answers a pooled `sentence_embedding`.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { DEFAULT_MIN_SIMILARITY, normalize, type EmbedPurpose, type Embedder } from './embedder.js';

export interface OnnxOptions {
  modelDir: string;
  languages: string[];
  queryPrefix: string;
  documentPrefix: string;
  minSimilarity?: number;
  /** Threads onnxruntime may use for one call (the pool in threads.ts runs one per thread). */
  intraOpThreads?: number;
}

/** What a model directory declares, read without loading the model. */
export interface OnnxModelInfo {
  modelFile: string;
  /** `onnx:<directory name>:<first 12 hex digits of the model file's SHA-256>`: a new file is a new model. */
  modelId: string;
  dimension: number;
  /** Tokens per text the model takes (its position embeddings): texts are cut there. */
  maxTokens: number;
}

const MODEL_FILES = ['model.onnx', 'onnx/model.onnx', 'model_quantized.onnx', 'onnx/model_quantized.onnx'];
/** Above this, a tokenizer's model_max_length is a placeholder ("no limit"), not the model's window. */
const LARGEST_WINDOW = 8192;
const DEFAULT_WINDOW = 512;

const readJson = (path: string): Record<string, unknown> => (existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : {});
const positive = (value: unknown): number | null => (typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : null);

export function describeOnnxModel(modelDir: string): OnnxModelInfo {
  const dir = resolve(modelDir);
  const modelFile = MODEL_FILES.map((f) => join(dir, f)).find((f) => existsSync(f));
  if (!modelFile) throw new Error(`${dir} holds no ONNX model (looked for ${MODEL_FILES.join(', ')})`);
  if (!existsSync(join(dir, 'tokenizer.json'))) throw new Error(`${dir} holds no tokenizer.json`);
  const config = readJson(join(dir, 'config.json'));
  const tokenizerConfig = readJson(join(dir, 'tokenizer_config.json'));
  const dimension = positive(config.hidden_size) ?? positive(config.dim) ?? positive(config.d_model);
  if (!dimension) throw new Error(`${dir}/config.json names no hidden_size: the vector dimension is unknown`);
  const declared = [positive(tokenizerConfig.model_max_length), positive(config.max_position_embeddings)].filter((n): n is number => n !== null && n <= LARGEST_WINDOW);
  const digest = createHash('sha256').update(readFileSync(modelFile)).digest('hex').slice(0, 12);
  return { modelFile, modelId: `onnx:${basename(dir)}:${digest}`, dimension, maxTokens: declared.length ? Math.min(...declared) : DEFAULT_WINDOW };
}

type Ort = typeof import('onnxruntime-node');
interface Encoder {
  encode(text: string): { ids: number[]; attention_mask: number[] };
}

interface Loaded {
  ort: Ort;
  session: import('onnxruntime-node').InferenceSession;
  tokenizer: Encoder;
}

export class OnnxEmbedder implements Embedder {
  readonly modelId: string;
  readonly dimension: number;
  readonly languages: readonly string[];
  readonly minSimilarity: number;
  private readonly info: OnnxModelInfo;
  private loaded: Promise<Loaded> | null = null;

  constructor(private readonly options: OnnxOptions) {
    this.info = describeOnnxModel(options.modelDir);
    this.modelId = this.info.modelId;
    this.dimension = this.info.dimension;
    this.languages = options.languages;
    this.minSimilarity = options.minSimilarity ?? DEFAULT_MIN_SIMILARITY;
  }

  async embed(texts: string[], purpose: EmbedPurpose = 'document'): Promise<Float32Array[]> {
    if (texts.length === 0) return [];
    const { ort, session, tokenizer } = await (this.loaded ??= this.load());
    const prefix = purpose === 'query' ? this.options.queryPrefix : this.options.documentPrefix;
    const encoded = texts.map((text) => {
      const { ids } = tokenizer.encode(prefix + text);
      // Cut to the model's window, keeping the closing special token the tokenizer added.
      return ids.length <= this.info.maxTokens ? ids : [...ids.slice(0, this.info.maxTokens - 1), ids[ids.length - 1]];
    });
    const width = Math.max(...encoded.map((ids) => ids.length));
    const ids = new BigInt64Array(texts.length * width);
    const mask = new BigInt64Array(texts.length * width);
    encoded.forEach((row, r) => row.forEach((id, c) => {
      ids[r * width + c] = BigInt(id);
      mask[r * width + c] = 1n;
    }));
    const shape = [texts.length, width];
    const feeds: Record<string, import('onnxruntime-node').Tensor> = {};
    for (const name of session.inputNames) {
      if (name === 'input_ids') feeds[name] = new ort.Tensor('int64', ids, shape);
      else if (name === 'attention_mask') feeds[name] = new ort.Tensor('int64', mask, shape);
      else if (name === 'token_type_ids') feeds[name] = new ort.Tensor('int64', new BigInt64Array(ids.length), shape);
      else throw new Error(`the model asks for an input kcs does not know: ${name}`);
    }
    const outputs = await session.run(feeds);
    const pooled = outputs.sentence_embedding;
    if (pooled) return encoded.map((_, r) => normalize((pooled.data as Float32Array).subarray(r * this.dimension, (r + 1) * this.dimension)));
    const hidden = outputs.last_hidden_state ?? outputs[session.outputNames[0]];
    return encoded.map((row, r) => normalize(meanPool(hidden.data as Float32Array, { row: r, tokens: row.length, width, dimension: this.dimension })));
  }

  async close(): Promise<void> {
    const loaded = await this.loaded?.catch(() => null);
    await loaded?.session.release();
  }

  private async load(): Promise<Loaded> {
    const [ort, { Tokenizer }] = await Promise.all([import('onnxruntime-node'), import('@huggingface/tokenizers')]);
    const dir = resolve(this.options.modelDir);
    const tokenizer = new Tokenizer(readJson(join(dir, 'tokenizer.json')), readJson(join(dir, 'tokenizer_config.json'))) as unknown as Encoder;
    const session = await ort.InferenceSession.create(this.info.modelFile, {
      intraOpNumThreads: this.options.intraOpThreads ?? 1,
      interOpNumThreads: 1,
      graphOptimizationLevel: 'all',
    });
    return { ort, session, tokenizer };
  }
}

/** The mean of one text's token vectors (its first `tokens` positions: the rest is padding). */
function meanPool(hidden: Float32Array, at: { row: number; tokens: number; width: number; dimension: number }): Float32Array {
  const { row, tokens, width, dimension } = at;
  const out = new Float32Array(dimension);
  for (let t = 0; t < tokens; t++) {
    const base = (row * width + t) * dimension;
    for (let k = 0; k < dimension; k++) out[k] += hidden[base + k];
  }
  for (let k = 0; k < dimension; k++) out[k] /= tokens;
  return out;
}
