// Strict parsing of an HTTP/1.x request head (RFC 9112 §3, §5, §6) for the gate (gate.ts): the
// request line, header field syntax, message framing and the head the app receives.

/** Set by the gate on every forwarded request (and removed from client input): the client's IP. */
export const CLIENT_ADDRESS_HEADER = 'x-kcs-client-address';

/** Bytes of a client's head (request line and fields), and how many fields it may have. */
export const MAX_HEAD_BYTES = 8192;
const MAX_HEADER_COUNT = 64;
/** uWS 20.30 closes the connection without an answer on a head over 4 KiB (UWS_HTTP_MAX_HEADERS_SIZE). */
const MAX_FORWARDED_HEAD_BYTES = 4096;

export interface RequestHead {
  method: string;
  /** Path without the query, for the route's body limit. */
  path: string;
  http10: boolean;
  /** Declared body length; undefined when there is none or it is chunked. */
  contentLength: number | undefined;
  chunked: boolean;
  /** Whether the connection stays open after the response. */
  keepAlive: boolean;
  expectContinue: boolean;
  /** The request line and header lines the app receives, without framing and without the final CRLF. */
  forwarded: string;
}

export interface HeadError {
  status: number;
  detail: string;
}

// RFC 9110 §5.6.2 tchar: the characters of a method and a field name.
const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") TCHAR[c.charCodeAt(0)] = 1;

// Fields about this hop (or framing), which the gate settles itself and never forwards.
const HOP_FIELDS = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade', 'transfer-encoding', 'content-length', 'expect', 'host', CLIENT_ADDRESS_HEADER]);

const fail = (status: number, detail: string): HeadError => ({ status, detail });
const isToken = (s: string) => {
  if (s.length === 0) return false;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c > 127 || TCHAR[c] === 0) return false;
  }
  return true;
};
/** field-value characters: HTAB, SP, VCHAR, obs-text (no CR, LF, NUL or other controls). */
const isFieldValue = (s: string) => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return false;
  }
  return true;
};
/** A request target's characters: visible ASCII only. */
const isTarget = (s: string) => {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c <= 0x20 || c >= 0x7f) return false;
  }
  return s.length > 0;
};

/** Parses a head given as latin1 text without its final CRLFCRLF; `clientAddress` is added for the app. */
export function parseRequestHead(text: string, clientAddress: string): RequestHead | HeadError {
  let lineEnd = text.indexOf('\r\n');
  if (lineEnd < 0) lineEnd = text.length;
  const line = text.slice(0, lineEnd);
  const sp1 = line.indexOf(' ');
  const sp2 = sp1 < 0 ? -1 : line.indexOf(' ', sp1 + 1);
  if (sp2 < 0 || line.indexOf(' ', sp2 + 1) >= 0) return fail(400, 'Malformed request line');
  const method = line.slice(0, sp1);
  let target = line.slice(sp1 + 1, sp2);
  const version = line.slice(sp2 + 1);
  if (!isToken(method)) return fail(400, 'Malformed request method');
  if (version !== 'HTTP/1.1' && version !== 'HTTP/1.0') {
    return /^HTTP\/\d\.\d$/.test(version) ? fail(505, 'HTTP version not supported; use HTTP/1.1') : fail(400, 'Malformed HTTP version');
  }
  const http10 = version === 'HTTP/1.0';
  if (!isTarget(target)) return fail(400, 'Malformed request target');

  let host: string | undefined;
  if (target.charCodeAt(0) !== 0x2f /* / */) {
    // Absolute-form (RFC 9112 §3.2.2): its authority is the Host; the app sees origin-form.
    const scheme = /^https?:\/\//i.exec(target);
    if (!scheme) return fail(400, 'Request target must be a path or an absolute http URL');
    const rest = target.slice(scheme[0].length);
    let authorityEnd = rest.search(/[/?]/);
    if (authorityEnd < 0) authorityEnd = rest.length;
    host = rest.slice(0, authorityEnd);
    if (host.length === 0 || host.includes('@')) return fail(400, 'Malformed authority in request target');
    target = rest.charCodeAt(authorityEnd) === 0x2f ? rest.slice(authorityEnd) : `/${rest.slice(authorityEnd)}`;
  }
  const queryAt = target.indexOf('?');
  const path = queryAt < 0 ? target : target.slice(0, queryAt);

  let kept = '';
  let count = 0;
  let hostField: string | undefined;
  let contentLength: number | undefined;
  let transferEncoding: string | undefined;
  let connection = '';
  let expect: string | undefined;
  let start = lineEnd + 2;
  while (start < text.length) {
    let end = text.indexOf('\r\n', start);
    if (end < 0) end = text.length;
    const field = text.slice(start, end);
    start = end + 2;
    if (++count > MAX_HEADER_COUNT) return fail(431, `More than ${MAX_HEADER_COUNT} header fields`);
    const colon = field.indexOf(':');
    // No whitespace before the colon (§5.1) and no obs-fold continuation lines (§5.2).
    const name = colon < 0 ? '' : field.slice(0, colon);
    if (!isToken(name)) return fail(400, 'Malformed header field');
    const value = field.slice(colon + 1).trim();
    if (!isFieldValue(value)) return fail(400, `Invalid characters in header field ${name}`);
    const lower = name.toLowerCase();
    if (!HOP_FIELDS.has(lower)) {
      kept += `\r\n${field}`;
      continue;
    }
    switch (lower) {
      case 'host':
        if (hostField !== undefined) return fail(400, 'More than one Host header field');
        hostField = value;
        break;
      case 'content-length': {
        // A list or repeated field is valid only when every value is the same (§6.3).
        for (const part of value.split(',')) {
          const digits = part.trim();
          if (!/^\d{1,15}$/.test(digits)) return fail(400, 'Malformed Content-Length');
          if (contentLength !== undefined && contentLength !== Number(digits)) return fail(400, 'Conflicting Content-Length values');
          contentLength = Number(digits);
        }
        break;
      }
      case 'transfer-encoding':
        transferEncoding = transferEncoding === undefined ? value : `${transferEncoding}, ${value}`;
        break;
      case 'connection':
        connection += `,${value.toLowerCase()}`;
        break;
      case 'expect':
        expect = value.toLowerCase();
        break;
    }
  }

  if (!http10 && hostField === undefined) return fail(400, 'Missing Host header field');
  if (hostField !== undefined && !/^[A-Za-z0-9._~:[\]%!$&'()*+,;=-]*$/.test(hostField)) return fail(400, 'Malformed Host header field');
  host ??= hostField ?? '';
  let chunked = false;
  if (transferEncoding !== undefined) {
    // A body both chunked and length-delimited is how requests are smuggled (§6.3): refuse it.
    if (http10) return fail(400, 'Transfer-Encoding is not allowed in HTTP/1.0');
    if (contentLength !== undefined) return fail(400, 'Content-Length and Transfer-Encoding together');
    if (transferEncoding.toLowerCase() !== 'chunked') return fail(501, 'Only the chunked transfer coding is supported');
    chunked = true;
  }
  if (expect !== undefined && expect !== '100-continue') return fail(417, 'Only Expect: 100-continue is supported');
  const tokens = connection === '' ? [] : connection.split(',').map((t) => t.trim());
  const keepAlive = http10 ? tokens.includes('keep-alive') : !tokens.includes('close');

  const forwarded = `${method} ${target} HTTP/1.1\r\nhost: ${host}${kept}\r\n${CLIENT_ADDRESS_HEADER}: ${clientAddress}`;
  if (forwarded.length > MAX_FORWARDED_HEAD_BYTES - 40) return fail(431, 'Request header fields too large');
  return { method, path, http10, contentLength, chunked, keepAlive, expectContinue: expect !== undefined && !http10, forwarded };
}

export const isHeadError = (value: RequestHead | HeadError): value is HeadError => 'status' in value;
