// The days a search analytics report covers: from and to as dates (inclusive) or date-times (their
// UTC day), by default the last 7 days up to today, at most MAX_RANGE_DAYS.
import { isDateTime } from '../schemas/common.js';
import { InvalidError } from './errors.js';
import { dayOf } from './searchCounter.js';

export const MAX_RANGE_DAYS = 92;
export const DEFAULT_RANGE_DAYS = 7;
const DAY_MS = 86_400_000;
const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface DayRange {
  from: string;
  to: string;
  /** Every day from `from` to `to`, in order. */
  days: string[];
}

/** The report's days; a bad date, from after to, or a range over MAX_RANGE_DAYS is an InvalidError at ['from'] or ['to']. */
export function dayRange(from: string | undefined, to: string | undefined, nowMs: number): DayRange {
  const toMs = to === undefined ? startOf(nowMs) : parseDay(to, 'to');
  const fromMs = from === undefined ? toMs - (DEFAULT_RANGE_DAYS - 1) * DAY_MS : parseDay(from, 'from');
  if (fromMs > toMs) throw InvalidError.at(['from'], `from (${dayOf(fromMs)}) is after to (${dayOf(toMs)})`);
  const count = (toMs - fromMs) / DAY_MS + 1;
  if (count > MAX_RANGE_DAYS) throw InvalidError.at(['to'], `The range spans ${count} days; a report covers at most ${MAX_RANGE_DAYS}`);
  const days = Array.from({ length: count }, (_, i) => dayOf(fromMs + i * DAY_MS));
  return { from: days[0], to: days[days.length - 1], days };
}

const startOf = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

/** A YYYY-MM-DD date or a date-time (its UTC day), as the start of the day in ms. */
function parseDay(text: string, field: 'from' | 'to'): number {
  const date = DATE_RE.exec(text);
  if (date) {
    const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
    const ms = Date.UTC(year, month - 1, day);
    // Date.UTC rolls 02-30 over into March: a real date reads back as written.
    if (month >= 1 && month <= 12 && new Date(ms).getUTCDate() === day && new Date(ms).getUTCFullYear() === year) return ms;
  } else if (isDateTime(text)) {
    // A date-time without an offset is read as UTC, wherever the process runs.
    const zoned = /([Zz]|[+-]\d{2}:?\d{2})$/.test(text) ? text : `${text.replace(' ', 'T')}Z`;
    return startOf(Date.parse(zoned));
  }
  throw InvalidError.at([field], 'Input should be a valid date (YYYY-MM-DD) or date-time', 'date_parsing');
}
