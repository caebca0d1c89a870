// A tiny ONNX embedding model written by the tests themselves, laid out as a Hugging Face export
// (model.onnx, tokenizer.json, tokenizer_config.json, config.json), so the `onnx` embedder runs
// for real in CI without a download. The graph is one Gather over a static embedding table
// (input_ids → last_hidden_state), which the embedder mean-pools; the tokenizer is BERT's
// WordPiece. Words of one concept, German and English, share a direction, so a German query
// finds a product by meaning without sharing a word with it.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FLOAT, INT64, initializer, model, node, stringField, valueInfo } from './onnxProto.js';

/** Concepts and their words; the first dimension of each concept's vector is its index. */
export const CONCEPTS: Record<string, string[]> = {
  dog: ['hund', 'hunde', 'welpe', 'leine', 'dog', 'puppy', 'leash'],
  cat: ['katze', 'kätzchen', 'kratzbaum', 'cat', 'kitten'],
  bike: ['fahrrad', 'rad', 'sattel', 'bike', 'bicycle', 'saddle'],
  coffee: ['kaffee', 'espresso', 'bohnen', 'coffee', 'beans'],
  rain: ['regen', 'regenjacke', 'jacke', 'rain', 'raincoat', 'jacket'],
};

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]'];
/** Words of no concept (articles, fillers): they all point along one extra dimension. */
const FILLERS = ['der', 'die', 'das', 'und', 'für', 'mit', 'the', 'and', 'for', 'with', 'a'];
export const ONNX_TEST_DIMENSION = Object.keys(CONCEPTS).length + 1;
export const ONNX_TEST_MAX_TOKENS = 32;

function staticEmbeddingModel(table: Float32Array, dim: number): Uint8Array {
  return model([
    node('Gather', ['embeddings', 'input_ids'], 'last_hidden_state'), stringField(2, 'static-embedding'),
    initializer('embeddings', [table.length / dim, dim], table),
    valueInfo(11, 'input_ids', INT64, ['batch', 'sequence']),
    valueInfo(11, 'attention_mask', INT64, ['batch', 'sequence']),
    valueInfo(12, 'last_hidden_state', FLOAT, ['batch', 'sequence', dim]),
  ], 13);
}

function tokenizerJson(vocab: Record<string, number>) {
  const special = (token: string) => ({ SpecialToken: { id: token, type_id: 0 } });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: false, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [special('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, special('[SEP]')],
      pair: [special('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, special('[SEP]'), { Sequence: { id: 'B', type_id: 1 } }, special('[SEP]')],
      special_tokens: Object.fromEntries(['[CLS]', '[SEP]'].map((token) => [token, { id: token, ids: [vocab[token]], tokens: [token] }])),
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}

/** Writes the model directory and returns its path. */
export function writeOnnxTestModel(dir: string): string {
  mkdirSync(dir, { recursive: true });
  const words = [...SPECIAL, ...FILLERS, ...Object.values(CONCEPTS).flat()];
  const vocab = Object.fromEntries(words.map((word, id) => [word, id]));
  const dim = ONNX_TEST_DIMENSION;
  const table = new Float32Array(words.length * dim);
  Object.values(CONCEPTS).forEach((conceptWords, c) => {
    for (const word of conceptWords) table[vocab[word] * dim + c] = 1;
  });
  for (const word of [...FILLERS, '[UNK]']) table[vocab[word] * dim + dim - 1] = 0.2;
  writeFileSync(join(dir, 'model.onnx'), staticEmbeddingModel(table, dim));
  writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(tokenizerJson(vocab)));
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ model_max_length: ONNX_TEST_MAX_TOKENS, do_lower_case: true }));
  writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'bert', hidden_size: dim }));
  return dir;
}
