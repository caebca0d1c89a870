// Where the CPU went, by function and by line of TypeScript, in V8 CPU profiles (`--cpu-prof`).
//
//   npm run profile:summary -- <dir or .cpuprofile files> [--top N]
//
// The benchmarks' BENCH_CPU_PROF runs compile TypeScript without minifying
// (bench/support/lineProfile.mjs), so their profiles keep lines; this compiles each source file
// again the same way and maps the profile's lines back through esbuild's source map. A profile of
// a plain tsx process has every sample on line 1 and shows functions only.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import { transformOptions } from './support/lineProfileHooks.mjs';

interface CallFrame { functionName: string; url: string; lineNumber: number; columnNumber: number }
interface ProfileNode { id: number; callFrame: CallFrame; hitCount?: number; positionTicks?: { line: number; ticks: number }[] }
interface Profile { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] }

/** Left out of the shares: waiting for work, and native time V8 attributes to no frame (its share is small). */
const IDLE = new Set(['(idle)', '(program)']);
const ROOT = process.cwd();

const args = process.argv.slice(2);
const topAt = args.indexOf('--top');
const top = topAt >= 0 ? Number(args.splice(topAt, 2)[1]) : 25;
if (args.length === 0 || !Number.isInteger(top) || top < 1) {
  console.error('usage: npm run profile:summary -- <dir or .cpuprofile files> [--top N]');
  process.exit(2);
}
const missing = args.find((path) => !existsSync(path));
if (missing) {
  console.error(`profile:summary: ${missing} does not exist`);
  process.exit(2);
}
const files = args.flatMap((path) => (statSync(path).isDirectory() ? readdirSync(path).filter((f) => f.endsWith('.cpuprofile')).map((f) => join(path, f)) : [path]));

/** Per TypeScript file: its lines as compiled (JS line → TS line), or null where it cannot be compiled again. */
const lineMaps = new Map<string, ((jsLine: number) => number) | null>();

function tsLine(url: string, jsLine: number): number {
  if (!/^file:.*\.(ts|tsx|mts)$/.test(url) || url.includes('/node_modules/')) return jsLine;
  let map = lineMaps.get(url);
  if (map === undefined) {
    map = null;
    try {
      const path = fileURLToPath(url);
      const { code, map: json } = transformSync(readFileSync(path, 'utf8'), transformOptions(path));
      const sourceMap = new SourceMap(JSON.parse(json));
      const lines = code.split('\n');
      map = (line) => {
        const text = lines[line - 1] ?? '';
        const entry = sourceMap.findEntry(line - 1, text.length - text.trimStart().length) as { originalLine?: number };
        return entry.originalLine === undefined ? line : entry.originalLine + 1;
      };
    } catch {
      // A file changed or gone since the run: its lines stay as profiled.
    }
    lineMaps.set(url, map);
  }
  return map ? map(jsLine) : jsLine;
}

const place = (url: string, line: number) => `${url.startsWith('file:') ? relative(ROOT, fileURLToPath(url)) : url || '(native)'}:${line}`;

function summarize(file: string): void {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const ms = new Map<number, number>();
  profile.samples.forEach((id, i) => ms.set(id, (ms.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  const byFunction = new Map<string, number>();
  const byLine = new Map<string, number>();
  let busy = 0;
  for (const node of profile.nodes) {
    const time = ms.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    if (time === 0 || IDLE.has(functionName)) continue;
    busy += time;
    const name = `${functionName || '(anonymous)'}  ${place(url, lineNumber < 0 ? 0 : tsLine(url, lineNumber + 1))}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + time);
    const ticks = node.positionTicks ?? [];
    const total = ticks.reduce((n, t) => n + t.ticks, 0);
    if (total === 0) byLine.set(name, (byLine.get(name) ?? 0) + time);
    for (const t of ticks) {
      const key = `${functionName || '(anonymous)'}  ${place(url, tsLine(url, t.line))}`;
      byLine.set(key, (byLine.get(key) ?? 0) + (time * t.ticks) / total);
    }
  }
  if (busy < 1) return;
  const urls = new Set(profile.nodes.map((n) => n.callFrame.url));
  const ran = (path: string) => urls.has(`file://${join(ROOT, path)}`);
  const role = ran('workers/ingest.ts') ? 'ingest worker' : ran('workers/embed.ts') ? 'embed worker' : ran('src/http/server.ts') ? 'serve' : 'other (a thread, or a process none of whose kcs code ran)';
  console.log(`\n${file}: ${role}, ${(busy / 1000).toFixed(2)} s busy`);
  const show = (title: string, table: Map<string, number>) => {
    console.log(`  ${title}`);
    for (const [name, time] of [...table].sort((a, b) => b[1] - a[1]).slice(0, top)) {
      console.log(`  ${((100 * time) / busy).toFixed(1).padStart(6)}%  ${name}`);
    }
  };
  show('self time by function (where it starts)', byFunction);
  show('self time by line', byLine);
}

for (const file of files) summarize(file);
