// BENCH_STEP=idle of bench:embedding: step 2's create (embedding off) on a fresh `kcs start`
// against one left idle first, in turns, round after round. The create with embedding behind runs
// in a `kcs start` that has just spent ~30 s on step 1 (its serve and ingest processes mostly
// idle), while its embedding-off brackets start fresh; this shows what that idle time alone costs.
//
//   BENCH_STEP=idle npm run bench:embedding       (BENCH_IDLE_ROUNDS=4, BENCH_IDLE_SECONDS=40)
import { bulkBodies } from './catalogue.js';
import { fmt, positiveInt, type Undo } from './harness.js';
import { createOnFreshStart } from './freshCreate.js';

const ROUNDS = positiveInt('BENCH_IDLE_ROUNDS', 4);
const IDLE_SECONDS = positiveInt('BENCH_IDLE_SECONDS', 40);
const PER_REQUEST = 10_000;

/** Seconds the comparison may take: each round starts, fills and stops two `kcs start`s, one after its idle time. */
export const idleComparisonSeconds = (products: number): number => ROUNDS * (2 * (30 + products * 0.0005) + IDLE_SECONDS);

/** One create on a new `kcs start` (embedding off), after `idleSeconds` of nothing. */
const createAfter = (undo: Undo, bodies: Buffer[], idleSeconds: number) =>
  createOnFreshStart(undo, { bodies, env: { KCS_EMBEDDER: 'none' }, before: () => new Promise((resolve) => setTimeout(resolve, idleSeconds * 1000)) });

export async function idleComparison(undo: Undo, products: number): Promise<number> {
  const bodies = bulkBodies('p', products, PER_REQUEST);
  const ratios: number[] = [];
  console.log(`| round | fresh: creates/s | idle ${IDLE_SECONDS} s first: creates/s | idle / fresh |`);
  console.log('|---:|---:|---:|---:|');
  for (let round = 1; round <= ROUNDS; round++) {
    const fresh = await createAfter(undo, bodies, 0);
    const idle = await createAfter(undo, bodies, IDLE_SECONDS);
    ratios.push(idle.rate / fresh.rate);
    console.log(`| ${round} | ${fmt(fresh.rate, 0)} | ${fmt(idle.rate, 0)} | ${fmt(idle.rate / fresh.rate, 2)} |`);
    console.error(`   round ${round} CPU per product, fresh: ${fresh.perProduct}; idle first: ${idle.perProduct}`);
  }
  const mean = ratios.reduce((a, b) => a + b, 0) / ratios.length;
  console.log(`\nidle first / fresh: ${fmt(mean, 2)} on average; slower in ${ratios.filter((r) => r < 1).length} of ${ratios.length} rounds`);
  return 0;
}
