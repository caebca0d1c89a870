// HTTP/1.x protocol cases at the gate (src/http/gate/), over raw sockets against a real kcs:
// pipelining, HTTP/1.0, absolute-form, malformed heads, message framing, chunked uploads, the
// lingering close after a 413, and the client address the app sees (a gate in front of a tiny
// upstream that echoes what it receives).
import assert from 'node:assert/strict';
import { Agent, createServer, request as httpRequest, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Gate } from '../../src/http/gate/gate.js';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';

const MIB = 1024 * 1024;

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

/**
 * Sends `pieces` on one connection, each as its own write (with a pause between, so they arrive
 * as separate reads), and collects responses until `count` arrived or the server closed.
 */
function exchange(pieces: (string | Buffer)[], count: number, port = stack.port): Promise<Exchanged> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let raw = Buffer.alloc(0);
    let settled = false;
    const settle = (closed: boolean) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve({ responses: parseResponses(raw, false), closed });
    };
    socket.on('data', (chunk: Buffer) => {
      raw = Buffer.concat([raw, chunk]);
      if (parseResponses(raw, true).length >= count) settle(false);
    });
    socket.on('end', () => settle(true));
    // A reset after a complete answer still counts as the answer that arrived.
    socket.on('error', (error) => (parseResponses(raw, true).length > 0 ? settle(true) : reject(error)));
    (async () => {
      for (const piece of pieces) {
        if (settled) return;
        await new Promise<void>((done) => socket.write(piece, () => done()));
        await new Promise((done) => setTimeout(done, 20));
      }
    })().catch(reject);
  });
}

/** Splits bytes into complete responses (Content-Length framed; `Status 1xx` and HEAD answers have none). */
function parseResponses(raw: Buffer, quiet: boolean): ParsedResponse[] {
  const out: ParsedResponse[] = [];
  let at = 0;
  for (;;) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end < 0) break;
    const lines = raw.toString('latin1', at, end).split('\r\n');
    const status = Number(lines[0].slice(9, 12));
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) headers[line.slice(0, line.indexOf(':')).toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
    const length = status < 200 ? 0 : Number(headers['content-length'] ?? 0);
    if (raw.length < end + 4 + length) break;
    out.push({ status, headers, body: raw.toString('utf8', end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
  if (!quiet && at < raw.length) assert.fail(`unparsed bytes after the responses: ${JSON.stringify(raw.toString('latin1', at, at + 200))}`);
  return out;
}

const siteBody = (slug: string) => JSON.stringify({ slug, name: 'S', language: 'en' });

describe('request order and versions', () => {
  test('pipelined requests in one packet are all answered, in order', async () => {
    const get = (id: string) => `GET /api/knowledge/sites HTTP/1.1\r\n${auth}X-Request-Id: ${id}\r\n\r\n`;
    const body = siteBody('piped');
    const post = `POST /api/knowledge/sites HTTP/1.1\r\n${auth}X-Request-Id: p\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const { responses, closed } = await exchange([get('a') + post + get('b') + get('c')], 4);
    assert.equal(closed, false);
    assert.deepEqual(responses.map((r) => [r.status, r.headers['x-request-id']]), [[200, 'a'], [201, 'p'], [200, 'b'], [200, 'c']]);
    // The request after the create sees the site.
    assert.ok(JSON.parse(responses[2].body).some((site: { slug: string }) => site.slug === 'piped'));
  });

  test('an HTTP/1.0 request is answered, then the connection closes', async () => {
    const { responses, closed } = await exchange([`GET /api/knowledge/sites HTTP/1.0\r\n${auth}\r\n`], 2);
    assert.equal(responses.length, 1);
    assert.equal(responses[0].status, 200);
    assert.equal(responses[0].headers.connection, 'close');
    assert.equal(closed, true);
  });

  test('HTTP/1.0 with Connection: keep-alive keeps the connection', async () => {
    const get = `GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n`;
    const { responses, closed } = await exchange([get, get], 2);
    assert.deepEqual(responses.map((r) => [r.status, r.headers.connection]), [[200, 'keep-alive'], [200, 'keep-alive']]);
    assert.equal(closed, false);
  });

  test('an absolute-form target is answered, its authority naming the tenant', async () => {
    const target = `http://${acme.tenant.slug}.localhost:${stack.port}/api/knowledge/sites?limit=1`;
    const { responses } = await exchange([`GET ${target} HTTP/1.1\r\nHost: elsewhere.localhost\r\nAuthorization: Bearer ${acme.key}\r\n\r\n`], 1);
    assert.equal(responses[0].status, 200, responses[0].body);
  });

  test('Connection: close is honoured after the response', async () => {
    const { responses, closed } = await exchange([`GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n`], 2);
    assert.equal(responses.length, 1);
    assert.equal(responses[0].headers.connection, 'close');
    assert.equal(closed, true);
  });

  test('a response to HEAD has no body, and the next pipelined response stays intact', async () => {
    const { responses } = await exchange(['HEAD /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: second\r\n\r\n'], 2);
    assert.equal(responses.length, 2);
    assert.equal(responses[0].body, '');
    assert.deepEqual([responses[1].status, responses[1].headers['x-request-id'], responses[1].body], [200, 'second', '{"status":"ok"}']);
  });
});

describe('idle keep-alive connections', () => {
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
      // Longer than the gate keeps an idle connection: the client dropped it before, and opens another.
      await new Promise((resolve) => setTimeout(resolve, 5_500));
      assert.equal((await get()).status, 200);
    } finally {
      agent.destroy();
    }
  });
});

describe('malformed heads are answered, then the connection closes', () => {
  const cases: [string, string, number][] = [
    ['a request line without target and version', 'GARBAGE\r\n\r\n', 400],
    ['a request line with double spaces', 'GET  /healthz  HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ['a request line with a fourth part', 'GET /healthz HTTP/1.1 extra\r\nHost: x\r\n\r\n', 400],
    ['a malformed version', 'GET /healthz HTTP/1.1x\r\nHost: x\r\n\r\n', 400],
    ['the HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 505],
    ['HTTP/1.2', 'GET /healthz HTTP/1.2\r\nHost: x\r\n\r\n', 505],
    ['a target that is not a path or an http URL', 'GET healthz HTTP/1.1\r\nHost: x\r\n\r\n', 400],
    ['HTTP/1.1 without Host', 'GET /healthz HTTP/1.1\r\n\r\n', 400],
    ['two Host fields', 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', 400],
    ['whitespace before a colon', 'GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n', 400],
    ['an obs-fold line', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: 1\r\n  2\r\n\r\n', 400],
    ['a control character in a value', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\x01b\r\n\r\n', 400],
    ['conflicting Content-Length', 'POST /api/knowledge/sites HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 5\r\n\r\n{}', 400],
    ['a malformed Content-Length', 'POST /api/knowledge/sites HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n', 400],
    ['Content-Length with Transfer-Encoding', 'POST /api/knowledge/sites HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n{}', 400],
    ['a transfer coding other than chunked', 'POST /api/knowledge/sites HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n', 501],
    ['Transfer-Encoding in HTTP/1.0', 'POST /api/knowledge/sites HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400],
    ['an unsupported expectation', 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\n\r\n', 417],
    ['a head over 8 KiB', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(9000)}\r\n\r\n`, 431],
    ['more than 64 fields', `GET /healthz HTTP/1.1\r\nHost: x\r\n${'X-A: 1\r\n'.repeat(70)}\r\n`, 431],
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

  test('identical repeated Content-Length values are one length', async () => {
    const body = siteBody('same-length');
    const { responses } = await exchange([`POST /api/knowledge/sites HTTP/1.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\nContent-Length: ${body.length}\r\n\r\n${body}`], 1);
    assert.equal(responses[0].status, 201, responses[0].body);
  });

  test('a head that never completes is answered 408', async () => {
    const { responses, closed } = await exchange(['GET /healthz HTTP/1.1\r\nHost: x\r\n'], 2);
    assert.equal(responses[0].status, 408);
    assert.equal(closed, true);
  });
});

describe('methods uWS does not parse are answered like any other unknown method', () => {
  test('on a known path: 405 with Allow', async () => {
    const { responses } = await exchange([`PROPFIND /api/knowledge/sites HTTP/1.1\r\n${auth}\r\n`], 1);
    assert.equal(responses[0].status, 405);
    assert.deepEqual(responses[0].headers.allow.split(', ').sort(), ['GET', 'POST']);
    assert.equal(JSON.parse(responses[0].body).detail, 'Method Not Allowed');
  });

  test('on an unknown path: 404', async () => {
    const { responses } = await exchange([`search /nowhere HTTP/1.1\r\n${auth}\r\n`], 1);
    assert.equal(responses[0].status, 404);
    assert.equal(JSON.parse(responses[0].body).detail, 'Not Found');
  });

  const headAnswer = (bytes: string) =>
    new Promise<string>((resolve, reject) => {
      const socket = connect(stack.port, '127.0.0.1', () => socket.write(bytes));
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
  for (const [name, bytes, status] of [
    ['a malformed Host', 'HEAD /healthz HTTP/1.1\r\nHost: a b\r\n\r\n', 400],
    ['a head over 8 KiB', `HEAD /healthz?q=${'a'.repeat(9000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
  ] as const) {
    test(`an error answer to HEAD has a length but no content: ${name}`, async () => {
      const raw = await headAnswer(bytes);
      assert.match(raw, new RegExp(`^HTTP/1\\.1 ${status} `));
      assert.match(raw, /\r\nContent-Length: [1-9]\d*\r\n/);
      assert.ok(raw.endsWith('\r\n\r\n'), `bytes after the head: ${JSON.stringify(raw)}`);
    });
  }
});

describe('chunked uploads', () => {
  test('chunks in separate writes, with extensions and trailers, are one body', async () => {
    const body = siteBody('chunked-pieces');
    const pieces = [
      `POST /api/knowledge/sites HTTP/1.1\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      `5;name=value\r\n${body.slice(0, 5)}\r\n`,
      `${(body.length - 5).toString(16)}\r\n${body.slice(5, 12)}`,
      `${body.slice(12)}\r\n`,
      '0\r\nX-Checksum: abc\r\n',
      '\r\n',
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

  test('a chunked body over the limit, in separate writes, is a 413', async () => {
    const head = `POST /api/knowledge/sites HTTP/1.1\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
    const piece = `80000\r\n${'x'.repeat(0x80000)}\r\n`;
    const { responses, closed } = await exchange([head, piece, piece, `1\r\nx\r\n0\r\n\r\n`], 2);
    assert.equal(responses[0].status, 413);
    assert.equal(closed, true);
  });
});

describe('bodies over the limit: the 413 always reaches the client', () => {
  for (const [path, limit] of [['/api/knowledge/products/bulk', 32 * MIB], ['/api/knowledge/sites', MIB]] as const) {
    test(`${path}: ${limit + 1} bytes, five times`, async () => {
      const body = Buffer.alloc(limit + 1, 0x20);
      for (let run = 0; run < 5; run++) {
        const head = `POST ${path} HTTP/1.1\r\n${auth}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
        const { responses } = await exchange([head, body], 1);
        assert.equal(responses[0]?.status, 413, `run ${run}`);
        assert.equal(responses[0].headers.connection, 'close');
        assert.match(JSON.parse(responses[0].body).detail, new RegExp(`larger than ${limit} bytes`));
      }
    });
  }
});

describe('the client address', () => {
  let upstream: Server;
  let gate: Gate;
  let gatePort: number;
  const seen: string[] = [];

  before(async () => {
    // A tiny upstream standing in for the app: it answers with the address header it was given.
    upstream = createServer((req, res) => {
      const values = req.headersDistinct['x-kcs-client-address'] ?? [];
      seen.push(values.join('|'));
      res.setHeader('Content-Length', Buffer.byteLength(values.join('|')));
      res.end(values.join('|'));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    gate = new Gate({ upstreamPort: (upstream.address() as AddressInfo).port, route: () => ({ kind: 'app', bodyLimit: MIB }), onRejected: () => undefined });
    gatePort = await gate.listen('127.0.0.1', 0);
  });
  after(async () => {
    await gate.close(1000);
    await new Promise((resolve) => upstream.close(resolve));
  });

  test("the app sees the client's address, never a client's own header", async () => {
    const { responses } = await exchange(['GET / HTTP/1.1\r\nHost: x\r\nX-KCS-Client-Address: 203.0.113.9\r\nx-kcs-client-address: 10.0.0.1\r\n\r\n'], 1, gatePort);
    assert.equal(responses[0].status, 200);
    assert.equal(responses[0].body, '127.0.0.1');
    assert.deepEqual(seen, ['127.0.0.1']);
  });
});

describe('graceful close', () => {
  test('an in-flight request is answered, then the connection closes and new ones are refused', async () => {
    let release = () => undefined as void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived = () => undefined as void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    // An upstream that holds its answer until the test releases it.
    const upstream = createServer((_req, res) => {
      arrived();
      void released.then(() => res.end('done'));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const gate = new Gate({ upstreamPort: (upstream.address() as AddressInfo).port, route: () => ({ kind: 'app', bodyLimit: MIB }), onRejected: () => undefined });
    const port = await gate.listen('127.0.0.1', 0);
    try {
      const inFlight = exchange(['GET / HTTP/1.1\r\nHost: x\r\n\r\n'], 2, port);
      await requestArrived;
      const closed = gate.close(30_000);
      await assert.rejects(exchange(['GET / HTTP/1.1\r\nHost: x\r\n\r\n'], 1, port), /ECONNREFUSED/);
      release();
      const { responses, closed: connectionClosed } = await inFlight;
      assert.deepEqual([responses[0].status, responses[0].body, responses[0].headers.connection], [200, 'done', 'close']);
      assert.equal(connectionClosed, true);
      await closed;
    } finally {
      await new Promise((resolve) => upstream.close(resolve));
    }
  });
});
