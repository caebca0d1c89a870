// Prices and ratings: a JSON number or a decimal string in, a canonical decimal string out.
// A string never passes through a float, so "19.999999999999999" stays exactly that.

/** The contract's pattern for decimal strings (spec §2.2): digits, one optional dot, an optional sign, no exponent. */
export const DECIMAL_PATTERN = '^(?!^[-+.]*$)[+-]?0*\\d*\\.?\\d*$';
const DECIMAL_RE = new RegExp(DECIMAL_PATTERN);

export const isDecimalString = (value: string): boolean => DECIMAL_RE.test(value);
/** A decimal string without sign, redundant zeros or trailing dot: canonical as it is. */
const CANONICAL_UNSIGNED_RE = /^(?:[1-9]\d*|0)(?:\.\d+)?$/;

/**
 * Canonical form: no '+', no redundant leading zeros ('.5' → '0.5', '007' → '7'), no trailing
 * dot ('5.' → '5'), no sign on zero ('-0' → '0', '-0.00' → '0.00'); fractional digits exactly as given.
 */
export function canonicalDecimal(input: string | number): string {
  const text = typeof input === 'number' ? plainNumber(input) : input;
  // Most prices arrive canonical already ('19.99'): one test instead of splitting the text.
  if (CANONICAL_UNSIGNED_RE.test(text)) return text;
  let sign = '';
  let body = text;
  if (body[0] === '+' || body[0] === '-') {
    sign = body[0] === '-' ? '-' : '';
    body = body.slice(1);
  }
  const [rawInt, rawFrac = ''] = body.split('.');
  const int = rawInt.replace(/^0+/, '') || '0';
  const isZero = int === '0' && /^0*$/.test(rawFrac);
  return `${isZero ? '' : sign}${int}${rawFrac ? `.${rawFrac}` : ''}`;
}

/** A JSON number as its shortest round-trip text, without exponent (1e21 → '1000000000000000000000'). */
function plainNumber(value: number): string {
  const text = String(value);
  const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!match) return text;
  const [, sign, lead, frac = '', exp] = match;
  const digits = lead + frac;
  const point = 1 + Number(exp);
  if (point <= 0) return `${sign}0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return `${sign}${digits}${'0'.repeat(point - digits.length)}`;
  return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Compares two canonical decimal strings: -1, 0 or 1. */
export function compareDecimal(a: string, b: string): number {
  const negA = a.startsWith('-');
  const negB = b.startsWith('-');
  if (negA !== negB) return negA ? -1 : 1;
  const flip = negA ? -1 : 1;
  const [ai, af = ''] = (negA ? a.slice(1) : a).split('.');
  const [bi, bf = ''] = (negB ? b.slice(1) : b).split('.');
  if (ai.length !== bi.length) return (ai.length < bi.length ? -1 : 1) * flip;
  if (ai !== bi) return (ai < bi ? -1 : 1) * flip;
  const width = Math.max(af.length, bf.length);
  const fa = af.padEnd(width, '0');
  const fb = bf.padEnd(width, '0');
  return fa === fb ? 0 : (fa < fb ? -1 : 1) * flip;
}
