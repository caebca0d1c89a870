// HTTP/1.x protocol cases over raw sockets against a real kcs, on the HTTP front of the run
// (KCS_HTTP: the test runner runs this file on both): pipelining, keep-alive, HEAD, chunked
// uploads, Expect, bodies over the limit, a graceful close. node:http (llhttp) answers what it
// cannot parse, as kcs answers errors; uWebSockets.js drops it with the connection (the cases it
// drops are listed, and the docs say what to put in front of it).
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { chooseFront } from '../../src/http/front.js';
import { RequestHandler } from '../../src/http/handler.js';
import { HttpMetrics } from '../../src/http/metrics.js';
import { defineRoute, json } from '../../src/http/route.js';
import { createLogger } from '../../src/log.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

const MIB = 1024 * 1024;
const FRONT = process.env.KCS_HTTP === 'node' ? 'node' : 'uws';

let stack: Stack;
let acme: TenantFixture;
let auth: string;

before(async () => {
  stack = await startStack();
  acme = await stack.tenant();
  auth = `Host: ${acme.tenant.slug}.localhost:${stack.port}\r\nAuthorization: Bearer ${acme.key}\r\n`;
});
after(() => stack.close());

interface Exchanged {
  responses: ParsedResponse[];
  /** The server closed the connection (after the last response). */
  closed: boolean;
}

interface ParsedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface ExchangeOptions {
  port?: number;
  /** Settle with what arrived after this long (default 10 s). */
  waitMs?: number;
  /** The first request is a HEAD: its response has a length but no content. */
  headFirst?: boolean;
  /** The pause between two pieces (default 20 ms): long enough, the first is answered before the next is sent. */
  gapMs?: number;
}

/**
 * Sends `pieces` on one connection, each as its own write (with a pause between, so they arrive
 * as separate reads), and collects responses until `count` arrived, the server closed, or waitMs passed.
 */
function exchange(pieces: (string | Buffer)[], count: number, { port = stack.port, waitMs = 10_000, headFirst = false, gapMs = 20 }: ExchangeOptions = {}): Promise<Exchanged> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let raw = Buffer.alloc(0);
    let settled = false;
    const timer = setTimeout(() => settle(false), waitMs);
    const settle = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ responses: parseResponses(raw, false, headFirst), closed });
    };
    socket.on('data', (chunk: Buffer) => {
      raw = Buffer.concat([raw, chunk]);
      if (parseResponses(raw, true, headFirst).length >= count) settle(false);
    });
    socket.on('end', () => settle(true));
    socket.on('close', () => settle(true));
    // A reset after a complete answer still counts as the answer that arrived.
    socket.on('error', (error) => {
      if (parseResponses(raw, true, headFirst).length > 0 || (error as NodeJS.ErrnoException).code === 'ECONNRESET') settle(true);
      else {
        clearTimeout(timer);
        settled = true;
        reject(error);
      }
    });
    (async () => {
      for (const piece of pieces) {
        if (settled) return;
        await new Promise<void>((done) => socket.write(piece, () => done()));
        await new Promise((done) => setTimeout(done, gapMs));
      }
    })().catch(() => undefined);
  });
}

/** Splits bytes into complete responses (Content-Length framed; `Status 1xx` and a first HEAD answer have none). */
function parseResponses(raw: Buffer, quiet: boolean, headFirst = false): ParsedResponse[] {
  const out: ParsedResponse[] = [];
  let at = 0;
  for (;;) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const lines = raw.toString('latin1', at, end).split('\r\n');
    const status = Number(lines[0].slice(9, 12));
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
    const noContent = status < 200 || (headFirst && out.length === 0);
    const length = noContent ? 0 : Number(headers['content-length'] ?? 0);
    if (raw.length < end + 4 + length) break;
    out.push({ status, headers, body: raw.toString('utf8', end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
  if (!quiet && at < raw.length) assert.fail(`unparsed bytes after the responses: ${JSON.stringify(raw.toString('latin1', at, at + 200))}`);
  return out;
}

const siteBody = (slug: string) => JSON.stringify({ slug, name: 'S', language: 'en' });

test('the run\'s front serves', async () => {
  assert.equal((await stack.request('GET', '/readyz')).body.http, FRONT);
});

describe('request order and keep-alive', () => {
  test('pipelined requests in one packet are all answered, in order', { skip: FRONT === 'uws' && 'uWS closes a connection that pipelines behind an unanswered request (below)' }, async () => {
    const get = (id: string) => `GET /api/knowledge/sites HTTP/1.1\r\n${auth}X-Request-Id: ${id}\r\n\r\n`;
    const body = siteBody('piped');
    const post = `POST /api/knowledge/sites HTTP/1.1\r\n${auth}X-Request-Id: p\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const { responses, closed } = await exchange([get('a') + post + get('b') + get('c')], 4);
    assert.equal(closed, false, JSON.stringify(responses));
    assert.deepEqual(responses.map((r) => [r.status, r.headers['x-request-id']]), [[200, 'a'], [201, 'p'], [200, 'b'], [200, 'c']]);
  });

  test('Connection: close is honoured after the response', async () => {
    const { responses, closed } = await exchange([`GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`], 2, { gapMs: 300 });
    assert.equal(responses.length, 1);
    assert.equal(responses[0].status, 200);
    assert.equal(closed, true);
  });

  test('a response to HEAD has a length and no body, and the next pipelined response stays intact', async () => {
    const { responses } = await exchange(['HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: second\r\n\r\n'], 2, { headFirst: true, gapMs: 300 });
    assert.equal(responses.length, 2);
    assert.equal(responses[0].headers['content-length'], String('{"status":"ok"}'.length));
    assert.equal(responses[0].body, '');
    assert.deepEqual([responses[1].status, responses[1].headers['x-request-id'], responses[1].body], [200, 'second', '{"status":"ok"}']);
  });

  test('an error answer to HEAD has a length but no content', async () => {
    const { responses } = await exchange([`HEAD /nowhere HTTP/1.1\r\nHost: x\r\n\r\n`, `GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`], 2, { headFirst: true, gapMs: 300 });
    assert.equal(responses[0].status, 404);
    assert.match(responses[0].headers['content-length'], /^[1-9]\d*$/);
    assert.equal(responses[0].body, '');
    assert.equal(responses[1].status, 200);
  });

  test('every response says how long an idle connection stays open, and a client that honours it never reuses a closed one', async () => {
    // Node's agent idles a socket out a second before the server's hint (with a timeout of its own set).
    const agent = new Agent({ keepAlive: true, timeout: 60_000 });
    try {
      const get = () =>
        new Promise<{ status: number; keepAlive: string | undefined }>((resolve, reject) => {
          const req = httpRequest(
            { host: '127.0.0.1', port: stack.port, path: '/api/knowledge/sites', agent, headers: { host: `${acme.tenant.slug}.localhost:${stack.port}`, authorization: `Bearer ${acme.key}` } },
            (res) => {
              res.resume();
              res.on('end', () => resolve({ status: res.statusCode ?? 0, keepAlive: res.headers['keep-alive'] as string | undefined }));
            },
          );
          req.on('error', reject);
          req.end();
        });
      const first = await get();
      assert.equal(first.status, 200);
      assert.equal(first.keepAlive, 'timeout=5');
      await new Promise((resolve) => setTimeout(resolve, 5_500));
      assert.equal((await get()).status, 200);
    } finally {
      agent.destroy();
    }
  });
});

describe('request bodies', () => {
  test('a chunked body in separate writes is one body', async () => {
    const body = siteBody('chunked-pieces');
    const pieces = [
      `POST /api/knowledge/sites HTTP/1.1\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      `5\r\n${body.slice(0, 5)}\r\n`,
      `${(body.length - 5).toString(16)}\r\n${body.slice(5, 12)}`,
      `${body.slice(12)}\r\n`,
      '0\r\n\r\n',
    ];
    const { responses } = await exchange(pieces, 1);
    assert.equal(responses[0].status, 201, responses[0].body);
    assert.equal(JSON.parse(responses[0].body).slug, 'chunked-pieces');
  });

  test('Expect: 100-continue gets 100 Continue, then the answer', async () => {
    const body = siteBody('continued');
    const head = `POST /api/knowledge/sites HTTP/1.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`;
    const { responses } = await exchange([head, body], 2);
    assert.deepEqual(responses.map((r) => r.status), [100, 201]);
  });

  test('a chunked body over the limit, in separate writes, is a 413 and the connection closes', async () => {
    const head = `POST /api/knowledge/sites HTTP/1.1\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const piece = `80000\r\n${'x'.repeat(0x80000)}\r\n`;
    const { responses, closed } = await exchange([head, piece, piece, `1\r\nx\r\n0\r\n\r\n`], 2, { waitMs: 2000 });
    assert.equal(responses[0].status, 413);
    assert.equal(responses.length, 1);
    assert.equal(closed || responses[0].headers.connection === 'close', true);
  });

  for (const [path, limit] of [['/api/knowledge/products/bulk', 32 * MIB], ['/api/knowledge/sites', MIB]] as const) {
    test(`the 413 of a body over the limit reaches the client: ${path}, ${limit + 1} bytes, five times`, async () => {
      const body = Buffer.alloc(limit + 1, 0x20);
      for (let run = 0; run < 5; run++) {
        const head = `POST ${path} HTTP/1.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
        const { responses, closed } = await exchange([head, body], 1);
        assert.equal(responses[0]?.status, 413, `run ${run}`);
        assert.match(JSON.parse(responses[0].body).detail, new RegExp(`larger than ${limit} bytes`));
        assert.equal(closed || responses[0].headers.connection === 'close', true);
      }
    });
  }
});

describe('node:http: what llhttp cannot parse is answered, then the connection closes', { skip: FRONT !== 'node' && 'uWebSockets.js front (KCS_HTTP=node runs these)' }, () => {
  test('an HTTP/1.0 request is answered, then the connection closes', async () => {
    const { responses, closed } = await exchange([`GET /api/knowledge/sites HTTP/1.0\r\n${auth}\r\n`], 2);
    assert.equal(responses.length, 1);
    assert.equal(responses[0].status, 200);
    assert.equal(closed, true);
  });

  test('HTTP/1.0 with Connection: keep-alive keeps the connection', async () => {
    const get = `GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n`;
    const { responses, closed } = await exchange([get, get], 2);
    assert.deepEqual(responses.map((r) => r.status), [200, 200]);
    assert.equal(closed, false);
  });

  test('an absolute-form target is answered, its authority naming the tenant', async () => {
    const target = `http://${acme.tenant.slug}.localhost:${stack.port}/api/knowledge/sites?limit=1`;
    const { responses } = await exchange([`GET ${target} HTTP/1.1\r\nHost: elsewhere.localhost\r\nAuthorization: Bearer ${acme.key}\r\n\r\n`], 1);
    assert.equal(responses[0].status, 200, responses[0].body);
  });

  test('chunks with extensions and trailers are one body', async () => {
    const body = siteBody('chunk-extensions');
    const pieces = [
      `POST /api/knowledge/sites HTTP/1.1\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      `5;name=value\r\n${body.slice(0, 5)}\r\n`,
      `${(body.length - 5).toString(16)}\r\n${body.slice(5)}\r\n`,
      '0\r\nX-Checksum: abc\r\n',
      '\r\n',
    ];
    const { responses } = await exchange(pieces, 1);
    assert.equal(responses[0].status, 201, responses[0].body);
  });

  test('a method no route has, on a known path: 405 with Allow', async () => {
    const { responses } = await exchange([`PROPFIND /api/knowledge/sites HTTP/1.1\r\n${auth}\r\n`], 1);
    assert.equal(responses[0].status, 405);
    assert.deepEqual(responses[0].headers.allow.split(', ').sort(), ['GET', 'POST']);
  });

  const cases: [string, string, number][] = [
    ['a request line without target and version', 'GARBAGE\r\n\r\n', 400],
    ['a request line with a fourth part', 'GET /healthz HTTP/1.1 extra\r\nHost: x\r\n\r\n', 400],
    ['a malformed version', 'GET /healthz HTTP/1.1x\r\nHost: x\r\n\r\n', 400],
    ['HTTP/1.2', 'GET /healthz HTTP/1.2\r\nHost: x\r\n\r\n', 505],
    ['HTTP/1.1 without Host', 'GET /healthz HTTP/1.1\r\n\r\n', 400],
    ['whitespace before a colon', 'GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n', 400],
    ['a control character in a value', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n', 400],
    ['conflicting Content-Length', 'POST /api/knowledge/sites HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}', 400],
    ['a malformed Content-Length', 'POST /api/knowledge/sites HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n', 400],
    ['Content-Length with Transfer-Encoding', 'POST /api/knowledge/sites HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}', 400],
    ['a head over 8 KiB', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(9000)}\r\n\r\n`, 431],
    ['a malformed chunk size', `POST /api/knowledge/sites HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`, 400],
  ];
  for (const [name, bytes, status] of cases) {
    test(`${name}: ${status}`, async () => {
      const { responses, closed } = await exchange([bytes + 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'], 2);
      assert.equal(responses.length, 1, 'nothing after the error is answered');
      assert.equal(responses[0].status, status);
      assert.equal(responses[0].headers.connection, 'close');
      assert.equal(typeof JSON.parse(responses[0].body).detail, 'string');
      assert.ok(responses[0].headers['x-request-id']);
      assert.equal(closed, true);
    });
  }

  test('a head that never completes is answered 408 and the connection closes', async () => {
    const { responses, closed } = await exchange(['GET /healthz HTTP/1.1\r\nHost: x\r\n'], 2, { waitMs: 15_000 });
    assert.equal(responses[0]?.status, 408);
    assert.equal(closed, true);
  });
});

describe('uWebSockets.js: what uWS does not parse is dropped with its connection, and the front serves on', { skip: FRONT !== 'uws' && 'node:http front' }, () => {
  // HTTP/1.0 and malformed heads are held until uWS's idle timeout (10 s); odd methods and chunk
  // extensions close at once. None is answered 5xx, and the others' requests are served meanwhile.
  const dropped: [string, string][] = [
    ['HTTP/1.0', `GET /api/knowledge/sites HTTP/1.0\r\n${'Host: x\r\n'}\r\n`],
    ['a request pipelined behind one not answered yet', 'GET /readyz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a malformed request line', 'GARBAGE\r\n\r\n'],
    ['a head that never completes', 'GET /healthz HTTP/1.1\r\nHost: x\r\n'],
    ['a method uWS does not know', 'PROPFIND /api/knowledge/sites HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['a chunk extension', 'POST /api/knowledge/sites HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n5;a=b\r\nhello\r\n0\r\n\r\n'],
  ];
  test('each is closed within the idle timeout without an answer', async () => {
    const results = await Promise.all(dropped.map(([, bytes]) => exchange([bytes], 1, { waitMs: 15_000 })));
    results.forEach(({ responses, closed }, i) => {
      assert.equal(closed, true, dropped[i][0]);
      assert.ok(responses.every((r) => r.status < 500), dropped[i][0]);
    });
    assert.equal((await stack.request('GET', '/healthz')).status, 200);
  });
});

describe('graceful close', () => {
  test('an in-flight request is answered, then the connection closes and new ones are refused', async () => {
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived = () => undefined as void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    // The run's front with one route that holds its answer until the test releases it.
    const hold = defineRoute({
      method: 'GET', path: '/hold', tags: [], summary: 'hold', auth: 'none', responses: { 200: { description: 'done' } },
      handler: async () => {
        arrived();
        await released;
        return json(200, { done: true });
      },
    });
    const handler = new RequestHandler({
      routes: [hold], dispatch: (route) => Promise.resolve(route.handler({} as never)), log: createLogger('silent', 'test'), metrics: new HttpMetrics(), unavailable: () => false,
    });
    const front = chooseFront(FRONT).open(handler);
    const port = await front.listen('127.0.0.1', 0);
    const inFlight = exchange(['GET /hold HTTP/1.1\r\nHost: x\r\n\r\n'], 2, { port });
    await requestArrived;
    const closed = front.close(30_000);
    await assert.rejects(exchange(['GET /hold HTTP/1.1\r\nHost: x\r\n\r\n'], 1, { port }), /ECONNREFUSED/);
    release();
    const { responses, closed: connectionClosed } = await inFlight;
    assert.deepEqual([responses[0].status, responses[0].body], [200, '{"done":true}']);
    assert.equal(connectionClosed, true);
    await closed;
  });
});
