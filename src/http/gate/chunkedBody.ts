// Incremental decoding of a chunked request body (RFC 9112 §7.1), bounded by the route's body
// limit, so the gate can forward it to the app with a Content-Length.

/** Chunk-size lines (with extensions) and each trailer line are at most this long. */
const MAX_LINE = 4096;
const MAX_TRAILER_BYTES = 8192;

export type ChunkedProgress =
  | { kind: 'more' }
  /** `rest` starts right after the body: the next pipelined request. */
  | { kind: 'done'; body: Buffer; rest: Buffer }
  | { kind: 'invalid'; detail: string }
  | { kind: 'too_large' };

type State = 'size' | 'data' | 'data_end' | 'trailer';

export class ChunkedBody {
  private state: State = 'size';
  private line = '';
  private chunkRemaining = 0;
  private size = 0;
  private trailerBytes = 0;
  private readonly parts: Buffer[] = [];

  constructor(private readonly limit: number) {}

  /** Consumes `input` (which may hold the next request after the body). */
  feed(input: Buffer): ChunkedProgress {
    let at = 0;
    while (at < input.length) {
      if (this.state === 'data') {
        const take = Math.min(this.chunkRemaining, input.length - at);
        this.parts.push(input.subarray(at, at + take));
        at += take;
        this.chunkRemaining -= take;
        if (this.chunkRemaining === 0) this.state = 'data_end';
        continue;
      }
      // The other states read a CRLF-terminated line.
      const lf = input.indexOf(0x0a, at);
      const end = lf < 0 ? input.length : lf + 1;
      this.line += input.toString('latin1', at, end);
      at = end;
      if (this.line.length > MAX_LINE + 2) return { kind: 'invalid', detail: 'Chunk line too long' };
      if (lf < 0) break;
      if (!this.line.endsWith('\r\n')) return { kind: 'invalid', detail: 'Chunk lines must end with CRLF' };
      const line = this.line.slice(0, -2);
      this.line = '';
      const outcome = this.onLine(line);
      if (outcome) return outcome.kind === 'done' ? { ...outcome, rest: input.subarray(at) } : outcome;
    }
    return { kind: 'more' };
  }

  private onLine(line: string): ChunkedProgress | { kind: 'done'; body: Buffer } | null {
    switch (this.state) {
      case 'data_end':
        if (line !== '') return { kind: 'invalid', detail: 'Chunk data longer than its size' };
        this.state = 'size';
        return null;
      case 'size': {
        // chunk-size [ chunk-ext ]: the extensions carry nothing the app needs.
        const match = /^([0-9A-Fa-f]{1,8})[ \t]*(;[^\x00-\x08\x0a-\x1f\x7f]*)?$/.exec(line);
        if (!match) return { kind: 'invalid', detail: 'Malformed chunk size' };
        const chunkSize = parseInt(match[1], 16);
        if (this.size + chunkSize > this.limit) return { kind: 'too_large' };
        this.size += chunkSize;
        if (chunkSize === 0) {
          this.state = 'trailer';
        } else {
          this.chunkRemaining = chunkSize;
          this.state = 'data';
        }
        return null;
      }
      case 'trailer':
        // Trailer fields are read and dropped: nothing in the app reads them.
        if (line === '') return { kind: 'done', body: this.parts.length === 1 ? this.parts[0] : Buffer.concat(this.parts, this.size) };
        this.trailerBytes += line.length;
        if (this.trailerBytes > MAX_TRAILER_BYTES) return { kind: 'invalid', detail: 'Trailer section too large' };
        if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+:/.test(line)) return { kind: 'invalid', detail: 'Malformed trailer field' };
        return null;
      default:
        return null;
    }
  }
}
