// Whether JSON text can hold a UTF-16 surrogate: where it cannot, the validator skips its
// per-string checks (ValueOrigin.surrogateFree), the larger part of checking a bulk item.
/** UTF-8 lead bytes of the characters outside the BMP, which JavaScript strings hold as surrogate pairs. */
const ASTRAL_LEADS = [0xf0, 0xf1, 0xf2, 0xf3, 0xf4];

/**
 * True when JSON text (UTF-8) can yield no string holding a surrogate: no escape `\uD800`–`\uDFFF`
 * (any case) and no character outside the BMP. Invalid UTF-8 decodes to U+FFFD, never to a
 * surrogate. Native searches over the bytes, far cheaper than a test of every string parsed from
 * them; text escaped everywhere (Python's ensure_ascii) costs a look at each escape.
 */
export function surrogateFreeJson(text: Buffer): boolean {
  if (ASTRAL_LEADS.some((lead) => text.indexOf(lead) !== -1)) return false;
  for (let at = text.indexOf('\\u'); at !== -1; at = text.indexOf('\\u', at + 2)) {
    // Lower-cased hex digits; an escaped backslash before the `u` only makes this say false.
    const first = text[at + 2] | 0x20;
    const second = text[at + 3] | 0x20;
    if (first === 0x64 && (second === 0x38 || second === 0x39 || (second >= 0x61 && second <= 0x66))) return false;
  }
  return true;
}
