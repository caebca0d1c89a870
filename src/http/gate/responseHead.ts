// How a response from the app (uWS) is framed, read from its head: the gate relays exactly one
// response per request and must know where it ends.

export interface ResponseFraming {
  status: number;
  /** Body bytes after the head; -1 when the body ends only with the connection. */
  bodyLength: number;
  /** The app closes the connection after this response. */
  close: boolean;
}

/** `head` is the latin1 text of the status line and fields, without the final CRLFCRLF. */
export function readResponseHead(head: string, requestMethod: string): ResponseFraming {
  const status = Number(head.slice(9, 12));
  const lower = head.toLowerCase();
  const close = /\r\nconnection:[ \t]*close/.test(lower);
  // RFC 9112 §6.3: no body for HEAD, 1xx, 204 and 304, whatever the fields say.
  if (requestMethod === 'HEAD' || status < 200 || status === 204 || status === 304) return { status, bodyLength: 0, close };
  // uWS frames every response it ends with Content-Length.
  const at = lower.indexOf('\r\ncontent-length:');
  if (at < 0) return { status, bodyLength: -1, close };
  const end = lower.indexOf('\r\n', at + 2);
  const length = Number(lower.slice(at + 17, end < 0 ? lower.length : end).trim());
  return { status, bodyLength: Number.isSafeInteger(length) && length >= 0 ? length : -1, close };
}
