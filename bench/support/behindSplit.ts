// BENCH_STEP=behind of bench:embedding: where the create "embedding behind" loses against its
// embedding-off brackets. Step 2's create on fresh `kcs start`s, in turns, five ways:
//   off      KCS_EMBEDDER=none (the brackets);
//   on       the defaults, nothing embedded first: the embed jobs queue behind the import;
//   stopped  as `on`, with the embed worker stopped (SIGSTOP) for the create;
//   step 1   the defaults after step 1 (the model warmed, 1,000 products embedded), as step 2 runs;
//   off + memory  as `off`, beside an idle process holding what the embed worker holds after
//            step 1 (~700 MB): on a VM that hands freed memory back to its host, memory held
//            elsewhere alone slows the import (docs/BENCHMARKS.md, "Twenty-sixth session").
// Each round starts at the next variant, so that none always runs first on a cooled machine.
//
//   BENCH_STEP=behind npm run bench:embedding     (BENCH_BEHIND_ROUNDS=3)
import { spawn } from 'node:child_process';
import { embedRun } from './bulkApi.js';
import { bulkBodies } from './catalogue.js';
import { fmt, positiveInt, type Undo } from './harness.js';
import { createOnFreshStart, type FreshCreate } from './freshCreate.js';

const ROUNDS = positiveInt('BENCH_BEHIND_ROUNDS', 3);
const PER_REQUEST = 10_000;
const EMBED_PRODUCTS = 1_000;
const VARIANTS = ['off', 'on', 'stopped', 'step 1', 'off + memory'] as const;
/** MB the idle process of `off + memory` holds: about the embed worker's RSS after step 1. */
const HELD_MB = 700;
type Variant = (typeof VARIANTS)[number];

/** Seconds the split may take: a `kcs start` a variant each round, one of them embedding for ~40 s first. */
export const behindSplitSeconds = (products: number): number => ROUNDS * (VARIANTS.length * (30 + products * 0.0005) + 60);

/** One create on a new `kcs start`, set up as the variant says. */
async function createAs(undo: Undo, bodies: Buffer[], variant: Variant): Promise<FreshCreate> {
  const holder = variant === 'off + memory' ? holdMemory(HELD_MB) : null;
  if (holder) undo(() => void holder.kill());
  try {
    return await createOnFreshStart(undo, {
      bodies,
      env: variant.startsWith('off') ? { KCS_EMBEDDER: 'none' } : {},
      before: async (kcs, api, path) => {
        if (variant === 'step 1') {
          await embedRun(api, path, 'warm', 900_000, 32);
          await embedRun(api, path, 'e', 200_000, EMBED_PRODUCTS);
        }
        if (variant !== 'stopped') return;
        const stopped = Object.entries(kcs.pids()).find(([name]) => name.includes('embed'))?.[1];
        if (stopped === undefined) throw new Error('no embed worker to stop');
        process.kill(stopped, 'SIGSTOP');
        return () => void process.kill(stopped, 'SIGCONT');
      },
    });
  } finally {
    holder?.kill();
  }
}

/** An idle process that holds `mb` of written memory until killed. */
function holdMemory(mb: number) {
  const script = `const held = []; for (let i = 0; i < ${mb}; i++) held.push(Buffer.alloc(1 << 20, 1)); setInterval(() => held.length, 1 << 30);`;
  return spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
}

export async function behindSplit(undo: Undo, products: number): Promise<number> {
  const bodies = bulkBodies('p', products, PER_REQUEST);
  const ratios = new Map<Variant, number[]>(VARIANTS.map((v) => [v, []]));
  console.log(`| round | ${VARIANTS.map((v) => `${v}: creates/s`).join(' | ')} |`);
  console.log(`|---:|${VARIANTS.map(() => '---:').join('|')}|`);
  for (let round = 1; round <= ROUNDS; round++) {
    const order = VARIANTS.map((_, i) => VARIANTS[(i + round - 1) % VARIANTS.length]);
    const rates = new Map<Variant, number>();
    for (const variant of order) {
      const run = await createAs(undo, bodies, variant);
      rates.set(variant, run.rate);
      console.error(`   round ${round}, ${variant}: ${fmt(run.rate, 0)}/s, CPU per product ${run.perProduct}`);
    }
    for (const v of VARIANTS) ratios.get(v)!.push(rates.get(v)! / rates.get('off')!);
    console.log(`| ${round} (from ${order[0]}) | ${VARIANTS.map((v) => fmt(rates.get(v)!, 0)).join(' | ')} |`);
  }
  console.log('');
  for (const v of VARIANTS.slice(1)) {
    const list = ratios.get(v)!;
    const mean = list.reduce((a, b) => a + b, 0) / list.length;
    console.log(`${v} / off in the same round: ${fmt(mean, 2)} on average (${list.map((r) => fmt(r, 2)).join(', ')}); slower in ${list.filter((r) => r < 1).length} of ${list.length}`);
  }
  return 0;
}
