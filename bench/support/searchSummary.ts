// The search benchmark's figures: each printed as it is noted, and at the end one table, a row per
// measurement and a column per engine, so the same measurement of the two engines reads side by side.
import type { EngineKind } from '../../src/search/index.js';
import { fmt, type Timing } from './harness.js';

export interface Check {
  target: string;
  met: boolean;
}

export class Summary {
  /** By measurement, in the order first noted: the figure of each engine and the target. */
  private readonly rows = new Map<string, { cells: Partial<Record<EngineKind, string>>; target?: string }>();
  /** What went wrong on the way (wrong answers, errors): the run fails with them. */
  readonly problems: string[] = [];
  /** Put before each measurement noted from now on (the stage of a growing catalogue). */
  prefix = '';

  problem(message: string): void {
    console.log(`   !! ${message}`);
    this.problems.push(message);
  }

  /** A figure of one engine (printed unless `print` is false); the other engine's figure of the same measurement lands in the same row. */
  note(engine: EngineKind, name: string, figure: string, check?: Check, print = true): void {
    const measure = this.prefix + name;
    let row = this.rows.get(measure);
    if (!row) this.rows.set(measure, (row = { cells: {} }));
    row.cells[engine] = check ? `${figure} (**${check.met ? 'met' : 'MISS'}**)` : figure;
    if (check) row.target = check.target;
    if (print) console.log(`   ${engine}: ${measure}: ${row.cells[engine]}`);
  }

  print(title: string, columns: { engine: EngineKind; heading: string }[]): void {
    console.log(`\n| ${title} | ${columns.map((c) => c.heading).join(' | ')} | target |`);
    console.log(`|---|${columns.map(() => '---|').join('')}---|`);
    for (const [measure, row] of this.rows) {
      console.log(`| ${measure} | ${columns.map((c) => row.cells[c.engine] ?? '—').join(' | ')} | ${row.target ?? ''} |`);
    }
  }
}

export const ms = (v: number) => fmt(v, v < 1 ? 3 : 2);
export const mib = (bytes: number) => `${fmt(bytes / 2 ** 20, 0)} MiB`;
export const perSecond = (count: number, millis: number) => `${fmt(count / (millis / 1000), 0)}/s`;
export const latency = (t: Timing) => `p50 ${ms(t.p50)} ms, p99 ${ms(t.p99)} ms, ${fmt(t.rate, 0)}/s`;
