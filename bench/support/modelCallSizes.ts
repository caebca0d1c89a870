// BENCH_STEP=call-size of bench:embedding: the model's texts per second on one thread for each
// size of model call (src/embed/batcher.ts MAX_CALL_TEXTS), with the texts the embed worker sends
// for the benchmark catalogue (embeddingTexts: description and anchor). The model is the local one,
// the one KCS_EMBEDDER names (onnx: KCS_ONNX_MODEL_DIR, texts cut to its window by tokens), or
// with BENCH_MODEL=transformer one of a small transformer's shape (bench/support/transformerModel.ts).
// The sizes take turns, round after round, so that the VM's drift in speed spreads over all of
// them instead of falling on the last.
//
//   npx tsx bench/support/modelCallSizes.ts [rounds]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { embeddingTexts, type ProductInput } from '../../src/domain/products.js';
import { buildEmbedder } from '../../src/embed/build.js';
import { product } from './catalogue.js';
import { writeTransformerModel } from './transformerModel.js';

const SIZES = [1, 2, 4, 8, 16];
const TEXTS_PER_ROUND = 96;

const rounds = Number(process.argv[2] ?? 3);
const transformer = process.env.BENCH_MODEL === 'transformer' && writeTransformerModel(mkdtempSync(join(tmpdir(), 'kcs-transformer-')));
const { embedding } = loadConfig({ KCS_EMBEDDER: 'local', ...process.env, ...(transformer ? { KCS_EMBEDDER: 'onnx', KCS_ONNX_MODEL_DIR: transformer } : {}) });
if (embedding.provider === 'none') throw new Error('BENCH_STEP=call-size measures a model: KCS_EMBEDDER must name one');
const embedder = buildEmbedder(embedding)!;
const texts = Array.from({ length: TEXTS_PER_ROUND }, (_, i) => Object.values(embeddingTexts(product('c', 300_000 + i) as unknown as ProductInput)))
  .flat()
  .filter((text): text is string => Boolean(text))
  .slice(0, TEXTS_PER_ROUND);
await embedder.embed(texts.slice(0, 4)); // loads the model (not timed)

const seconds = new Map(SIZES.map((size) => [size, 0]));
for (let round = 0; round < rounds; round++) {
  for (const size of SIZES) {
    const t0 = performance.now();
    for (let i = 0; i < texts.length; i += size) await embedder.embed(texts.slice(i, i + size));
    seconds.set(size, seconds.get(size)! + (performance.now() - t0) / 1000);
  }
}
console.log(`| texts a model call | texts/s (one thread, ${rounds} rounds of ${texts.length}) | one call |`);
console.log('|---:|---:|---:|');
for (const size of SIZES) {
  const s = seconds.get(size)!;
  console.log(`| ${size} | ${((rounds * texts.length) / s).toFixed(1)} | ${((1000 * s * size) / (rounds * texts.length)).toFixed(0)} ms |`);
}
await embedder.close?.();
if (transformer) rmSync(transformer, { recursive: true, force: true });
