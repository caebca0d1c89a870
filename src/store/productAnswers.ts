// The answers of writeProducts and settleItems (store/lua): two values per product or item, a code
// and its detail (an id, a group, a revision or '').
import { ProductWriteResult, SettleResult } from './scripts.js';

export type WriteOutcome =
  | { kind: 'ok' }
  | { kind: 'stale' }
  | { kind: 'external_id_taken'; ownerId: string }
  | { kind: 'translation_group'; groupId: string };

/**
 * Per item of settleMany: 'unchanged', 'done' (the job item has a result already) or 'unsettled',
 * with the id its external_id names; where that is none (a new product), the tenant's translation
 * group of the external_id (null: none yet).
 */
export type Settled = { result: 'unchanged' | 'done' | 'unsettled'; id: string } | { result: 'unsettled'; id: null; group: string | null };

/** Calls `each(code, detail)` for each pair of an answer. */
function eachPair(answer: string[], each: (code: number, detail: string) => void): void {
  for (let i = 0; i < answer.length; i += 2) each(Number(answer[i]), answer[i + 1]);
}

/** A writeProducts answer: the outcome of each product of the call, in order. */
export function writeOutcomesOf(answer: string[]): WriteOutcome[] {
  const outcomes: WriteOutcome[] = [];
  eachPair(answer, (code, detail) => outcomes.push(
    code === ProductWriteResult.Written ? { kind: 'ok' }
    : code === ProductWriteResult.ExternalIdTaken ? { kind: 'external_id_taken', ownerId: detail }
    : code === ProductWriteResult.TranslationGroupDiffers ? { kind: 'translation_group', groupId: detail }
    : { kind: 'stale' },
  ));
  return outcomes;
}

/** A settleItems answer: what became of each item of the call, in order. */
export function settledOf(answer: string[]): Settled[] {
  const settled: Settled[] = [];
  eachPair(answer, (code, detail) => settled.push(
    code === SettleResult.New ? { result: 'unsettled', id: null, group: detail || null }
    : { result: code === SettleResult.Unchanged ? 'unchanged' : code === SettleResult.Counted ? 'done' : 'unsettled', id: detail },
  ));
  return settled;
}
