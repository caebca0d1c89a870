// The HTTP front that serves the routes: uWebSockets.js where its native build loads (Node 16, 18
// and 20 on glibc Linux, for this release of it), node:http everywhere else or when chosen
// (KCS_HTTP). Both take the same routes through one RequestHandler (handler.ts) and answer alike.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type uWS from 'uWebSockets.js';
import type { FrontKind, HttpFront, RequestHandler } from './handler.js';
import { NodeFront } from './nodeFront.js';
import { UwsFront } from './uwsFront.js';

/** KCS_HTTP: a front, or `auto` (uWS where it loads, else node:http). */
export type FrontChoice = FrontKind | 'auto';

/** The front chosen (before the routes are: /readyz names it), and why it is not uWS where auto fell back (null otherwise). */
export interface ChosenFront {
  kind: FrontKind;
  fallback: string | null;
  open(handler: RequestHandler): HttpFront;
}

export function chooseFront(choice: FrontChoice): ChosenFront {
  const node = (fallback: string | null): ChosenFront => ({ kind: 'node', fallback, open: (handler) => new NodeFront(handler) });
  if (choice === 'node') return node(null);
  const loaded = loadUws();
  if ('uws' in loaded) return { kind: 'uws', fallback: null, open: (handler) => new UwsFront(loaded.uws, handler) };
  if (choice === 'uws') throw new Error(`KCS_HTTP=uws, but uWebSockets.js cannot load here: ${loaded.why}`);
  return node(loaded.why);
}

/**
 * uWebSockets.js's native build for this Node, or why there is none. The binary is loaded itself:
 * the package's own entry falls back to a slow JavaScript imitation, with a warning, where it is missing.
 */
function loadUws(): { uws: typeof uWS } | { why: string } {
  const require = createRequire(import.meta.url);
  const binary = join(dirname(require.resolve('uWebSockets.js/package.json')), 'binaries', `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`);
  if (!existsSync(binary)) return { why: `no build for Node ${process.versions.node} (ABI ${process.versions.modules}) on ${process.platform}-${process.arch}` };
  try {
    return { uws: require(binary) as typeof uWS };
  } catch (error) {
    return { why: (error as Error).message.split('\n')[0] };
  }
}
