// One string object for each value that many documents repeat (site ids, attribute names): a
// replica otherwise keeps each document's own copy, made by JSON.parse, for as long as the
// document is indexed.
const known = new Map<string, string>();
/** Distinct values remembered (over every tenant of the process); a full table starts over. */
const LIMIT = 100_000;

export function shared(value: string): string {
  const found = known.get(value);
  if (found !== undefined) return found;
  if (known.size >= LIMIT) known.clear();
  known.set(value, value);
  return value;
}
