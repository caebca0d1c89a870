// Price phrases of a shopper's query read as a price filter, German and English: "unter 100 €",
// "bis 50 euro", "under $80", "50-100€", "zwischen 20 und 50 euro", "günstiger als 30", "ab 20 €".
// A bare preposition and number ("bis 50", "over 50") is a price only with a currency: "größe bis
// 50" or "over 50 pages" are not; a comparison that names a price ("günstiger als 30", "cheaper
// than 30") is one without. Pure and fast: a few regular expressions over the query.

/** A price filter read from the query. */
export interface PriceFilter {
  price_min?: number;
  price_max?: number;
}

/** A phrase of the query read as a filter: the words as typed, and the filter they stand for. */
export interface PricePhrase {
  words: string;
  filter: PriceFilter;
}

const CURRENCY_BEFORE = String.raw`(?:€|\$|£|eur\b|usd\b|chf\b|gbp\b)`;
const CURRENCY_AFTER = String.raw`(?:€|\$|£|,-|(?:eur|euro|euros|usd|dollars?|chf|franken|gbp|pounds?)\b)`;
/** An amount: digits with an optional decimal part (comma or point) or thousands points ("1.000"). */
const NUMBER = String.raw`(\d{1,3}(?:[.'’]\d{3})+|\d{1,7})(?:[.,](\d{1,2}))?`;
/** An amount with its currency (required), before or after. */
const PRICED = String.raw`(?:${CURRENCY_BEFORE}\s*${NUMBER}|${NUMBER}\s*${CURRENCY_AFTER})`;
/** An amount whose currency may be left out. */
const AMOUNT = String.raw`(?:${CURRENCY_BEFORE}\s*${NUMBER}|${NUMBER}(?:\s*${CURRENCY_AFTER})?)`;

/** Words saying "at most", as a bare preposition (needs a currency) or a comparison of price (does not). */
const MAX_WORDS = String.raw`(?:unter|bis|bis zu|max\.?|maximal|höchstens|hoechstens|under|below|up to|max|at most|less than|weniger als|<=?)`;
const MAX_PRICE_WORDS = String.raw`(?:günstiger als|guenstiger als|billiger als|preiswerter als|cheaper than|(?:preis|price)\s+(?:unter|bis|under|below|max\.?))`;
const MIN_WORDS = String.raw`(?:ab|über|ueber|mindestens|over|above|from|at least|more than|mehr als|>=?)`;
const MIN_PRICE_WORDS = String.raw`(?:teurer als|more expensive than|(?:preis|price)\s+(?:ab|über|ueber|over|above|from))`;
const RANGE_JOIN = String.raw`(?:\s*[-–]\s*|\s+(?:bis|to|und|and)\s+)`;

/** Each pattern with what its numbers mean; a match's words must stand alone (not inside a word). */
const PATTERNS: { re: RegExp; filter: (amounts: number[]) => PriceFilter | null }[] = [
  // "zwischen 20 und 50 euro", "between $20 and $50", "50-100€", "€50 - €100", "20 bis 50 euro"
  { re: phrase(String.raw`(?:(?:zwischen|between|from|von|ab)\s+)?${AMOUNT}${RANGE_JOIN}${PRICED}`), filter: range },
  { re: phrase(String.raw`(?:zwischen|between)\s+${AMOUNT}${RANGE_JOIN}${AMOUNT}`), filter: range },
  { re: phrase(String.raw`${MAX_PRICE_WORDS}\s+${AMOUNT}`), filter: ([max]) => ({ price_max: max }) },
  { re: phrase(String.raw`${MAX_WORDS}\s*${PRICED}`), filter: ([max]) => ({ price_max: max }) },
  { re: phrase(String.raw`${MIN_PRICE_WORDS}\s+${AMOUNT}`), filter: ([min]) => ({ price_min: min }) },
  { re: phrase(String.raw`${MIN_WORDS}\s*${PRICED}`), filter: ([min]) => ({ price_min: min }) },
];

function phrase(pattern: string): RegExp {
  return new RegExp(String.raw`(?<![\p{L}\p{N}])${pattern}(?![\p{L}\p{N}])`, 'iu');
}

function range([a, b]: number[]): PriceFilter | null {
  return a <= b ? { price_min: a, price_max: b } : null;
}

/** The amounts a match holds: each NUMBER group pair (integer, decimals) that matched. */
function amountsOf(match: RegExpExecArray): number[] {
  const out: number[] = [];
  // Groups come in pairs (integer part, decimal part), as NUMBER appears in the pattern.
  for (let g = 1; g < match.length; g += 2) {
    if (match[g] === undefined) continue;
    const integer = match[g].replace(/[.'’]/g, '');
    out.push(Number(match[g + 1] === undefined ? integer : `${integer}.${match[g + 1]}`));
  }
  return out;
}

/**
 * The price phrases of a query, and the query without them (its other words, spaced as typed).
 * At most one phrase per kind of bound: a second "unter 50 €" is left in the text.
 */
export function understandPrices(query: string): { query: string; phrases: PricePhrase[] } {
  let rest = query;
  const phrases: PricePhrase[] = [];
  const bounded = { min: false, max: false };
  for (const { re, filter } of PATTERNS) {
    const match = re.exec(rest);
    if (!match) continue;
    const read = filter(amountsOf(match));
    if (!read || (read.price_min !== undefined && bounded.min) || (read.price_max !== undefined && bounded.max)) continue;
    bounded.min ||= read.price_min !== undefined;
    bounded.max ||= read.price_max !== undefined;
    phrases.push({ words: match[0].trim(), filter: read });
    rest = `${rest.slice(0, match.index)} ${rest.slice(match.index + match[0].length)}`;
  }
  return { query: phrases.length > 0 ? rest.replace(/\s+/g, ' ').trim() : query, phrases };
}
