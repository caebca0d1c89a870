// The search benchmark's closing table: one row per measurement, one column per engine, so the
// same measurement of the two engines reads side by side.
import type { EngineKind } from '../../src/search/index.js';
import { fmt } from './harness.js';

export interface Check {
  target: string;
  met: boolean;
}

interface Row {
  cells: Partial<Record<EngineKind, string>>;
  target?: string;
}

export class Summary {
  /** By measurement, in the order first noted. */
  private readonly rows = new Map<string, Row>();
  /** What went wrong on the way (wrong answers, errors): the run fails with them. */
  readonly problems: string[] = [];

  problem(message: string): void {
    this.problems.push(message);
  }

  /** A figure of one engine; the other engine's figure of the same measurement lands in the same row. */
  note(engine: EngineKind, measure: string, figure: string, check?: Check): void {
    let row = this.rows.get(measure);
    if (!row) this.rows.set(measure, (row = { cells: {} }));
    row.cells[engine] = check ? `${figure} (**${check.met ? 'met' : 'MISS'}**)` : figure;
    if (check) row.target = check.target;
  }

  /** Notes a figure that is the same for every engine (the baselines over the shared data). */
  noteAll(engines: readonly EngineKind[], measure: string, figure: string): void {
    for (const engine of engines) this.note(engine, measure, figure);
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
