// Keeps String.prototype a fast object in V8: the first import of src/cli.ts (every kcs process),
// src/app.ts (where the benchmarks' servers start) and the two store modules the in-process
// benchmarks reach first (store/redis.ts, store/embeddedRedis.ts), before anything loads ioredis.
//
// ioredis 6's RESP3 decoder declares `class VerbatimString extends String`
// (ioredis/built/resp/verbatim-string.js, loaded with the client). Making String.prototype the
// prototype of a new object turns it into a dictionary-mode object, and V8 never makes it fast
// again for string primitives: from then on every method call on a string in the process
// (`charCodeAt`, `slice`, `indexOf`, …) is a generic lookup instead of an inlined load. A loop of
// `charCodeAt` over strings ran 5–6× slower with ioredis loaded, and the ingest worker spent ~8%
// of its instructions in those lookups (docs/BENCHMARKS.md, "Eighteenth session").
//
// kcs speaks RESP2 and never asks for verbatim strings (a RESP3 reply type), so the module is
// put in the require cache, before ioredis requires it, as one whose VerbatimString wraps its
// string instead of extending String.
import Module, { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const path = require.resolve('ioredis/built/resp/verbatim-string.js');

/** A RESP3 verbatim string: its text and its format (e.g. 'txt'), as ioredis's own has them. */
class VerbatimString {
  constructor(
    readonly format: string,
    private readonly value: string,
  ) {}

  toString(): string {
    return this.value;
  }

  valueOf(): string {
    return this.value;
  }
}

if (!require.cache[path]) {
  const replacement = new Module(path);
  replacement.filename = path;
  replacement.loaded = true;
  replacement.exports = { __esModule: true, VerbatimString };
  require.cache[path] = replacement;
}
