// store/stringPrototypeGuard.ts: with it loaded first, ioredis leaves String.prototype a fast
// object (V8's own check, in a child process with --allow-natives-syntax); without it, loading
// ioredis makes it a dictionary-mode object (when a release of ioredis no longer does, the guard
// can go). Every entry point loads it before anything else.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

/** Whether String.prototype has fast properties after importing `modules` in a fresh process. */
function stringPrototypeFastAfter(modules: string[]): boolean {
  const imports = modules.map((m) => `await import(${JSON.stringify(m)});`).join(' ');
  const child = spawnSync(process.execPath, ['--allow-natives-syntax', '--import', 'tsx', '--input-type=module', '-e', `${imports} console.log(%HasFastProperties(String.prototype));`], {
    encoding: 'utf8',
    cwd: new URL('../..', import.meta.url).pathname,
  });
  assert.equal(child.status, 0, child.stderr);
  // The last line: importing src/cli.ts prints its usage first.
  return child.stdout.trim().split('\n').pop() === 'true';
}

test('loading ioredis (its RESP decoder) turns String.prototype into a dictionary-mode object', () => {
  assert.equal(stringPrototypeFastAfter(['ioredis', 'ioredis/built/resp/decoder.js']), false);
});

test('with the guard loaded first, ioredis and BullMQ leave String.prototype fast', () => {
  assert.equal(stringPrototypeFastAfter(['./src/store/stringPrototypeGuard.ts', 'ioredis', 'ioredis/built/resp/decoder.js', 'bullmq']), true);
});

test('the replacement VerbatimString reads as its text and keeps its format', async () => {
  await import('../../src/store/stringPrototypeGuard.js');
  const { VerbatimString } = (await import('ioredis/built/resp/verbatim-string.js')) as { VerbatimString: new (format: string, value: string) => { format: string } };
  const text = new VerbatimString('txt', 'hello');
  assert.equal(`${text}`, 'hello');
  assert.equal(text.format, 'txt');
});

test('importing src/cli.ts, the entry point of every process, leaves String.prototype fast', () => {
  assert.equal(stringPrototypeFastAfter(['./src/cli.ts']), true);
});

for (const [entry, guard] of [['src/cli.ts', './store/'], ['src/app.ts', './store/'], ['src/store/redis.ts', './'], ['src/store/embeddedRedis.ts', './']]) {
  test(`${entry} imports the guard before anything else`, () => {
    const firstImport = /^import .*$/m.exec(readFileSync(new URL(`../../${entry}`, import.meta.url), 'utf8'))?.[0];
    assert.equal(firstImport, `import '${guard}stringPrototypeGuard.js';`);
  });
}
