// The HTTP front end over real HTTP: body limits, content types, JSON errors, routing errors,
// X-Request-Id, probes and metrics (DESIGN §3); the OpenAPI document is in openapi.test.ts.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../helpers/eventually.js';
import { startStack, type HttpResult, type Stack, type TenantFixture } from '../helpers/stack.js';

const MIB = 1024 * 1024;
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

let stack: Stack;
let acme: TenantFixture;
/** Every response seen in this file, for the stack-trace spot check at the end. */
const seen: HttpResult[] = [];

before(async () => {
  stack = await startStack();
  acme = await stack.tenant();
});
after(() => stack.close());

const req = async (method: string, path: string, options: Parameters<TenantFixture['request']>[2] = {}) => {
  const res = await acme.request(method, path, options);
  seen.push(res);
  return res;
};

/** A valid SiteCreate JSON body of exactly `size` bytes (padding in a config string). */
function siteBodyOfSize(slug: string, size: number): string {
  const head = `{"slug":"${slug}","name":"Big","language":"en","config":{"pad":"`;
  const tail = '"}}';
  const pad = size - Buffer.byteLength(head) - Buffer.byteLength(tail);
  assert.ok(pad > 0);
  const body = head + 'x'.repeat(pad) + tail;
  assert.equal(Buffer.byteLength(body), size);
  JSON.parse(body); // valid JSON
  return body;
}

describe('JSON body limit (1 MiB)', () => {
  test('a body of exactly 1,048,576 bytes is accepted', async () => {
    const raw = siteBodyOfSize('exactly-one-mib', MIB);
    const res = await req('POST', '/api/knowledge/sites', { raw, headers: { 'content-type': 'application/json' } });
    assert.notEqual(res.status, 413);
    assert.ok([201, 422].includes(res.status), `status ${res.status}: ${res.text.slice(0, 200)}`);
  });

  test('a body of exactly 1,048,576 bytes padded with whitespace is accepted', async () => {
    const json = JSON.stringify({ slug: 'ws-padded', name: 'Padded', language: 'en' });
    const raw = json + ' '.repeat(MIB - Buffer.byteLength(json));
    assert.equal(Buffer.byteLength(raw), MIB);
    const res = await req('POST', '/api/knowledge/sites', { raw, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 201, res.text.slice(0, 200));
    assert.equal(res.body.slug, 'ws-padded');
  });

  test('one byte more is a 413 with {detail: string}', async () => {
    const raw = siteBodyOfSize('over-one-mib', MIB + 1);
    const res = await req('POST', '/api/knowledge/sites', { raw, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 413);
    assert.equal(typeof res.body.detail, 'string');
    assert.ok(res.headers['x-request-id']);
    // The site was not created.
    const got = await req('GET', '/api/knowledge/sites/over-one-mib');
    assert.equal(got.status, 404);
  });
});

/** POST with Transfer-Encoding: chunked (no Content-Length), written in 64 KiB pieces. */
function postChunked(path: string, body: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: stack.port,
        method: 'POST',
        path,
        headers: {
          host: `${acme.tenant.slug}.localhost:${stack.port}`,
          authorization: `Bearer ${acme.key}`,
          'content-type': 'application/json',
          'transfer-encoding': 'chunked',
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c: Buffer) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
      },
    );
    req.on('error', reject);
    for (let i = 0; i < body.length; i += 65536) req.write(body.slice(i, i + 65536));
    req.end();
  });
}

describe('chunked request bodies', () => {
  test('a chunked body of exactly 1 MiB is accepted', async () => {
    const res = await postChunked('/api/knowledge/sites', siteBodyOfSize('chunked-one-mib', MIB));
    assert.equal(res.status, 201);
    assert.equal(res.body.slug, 'chunked-one-mib');
  });

  test('a chunked body one byte over 1 MiB is a 413', async () => {
    const res = await postChunked('/api/knowledge/sites', siteBodyOfSize('chunked-over', MIB + 1));
    assert.equal(res.status, 413);
    assert.equal(typeof res.body.detail, 'string');
    assert.equal((await req('GET', '/api/knowledge/sites/chunked-over')).status, 404);
  });
});

describe('HEAD', () => {
  /** Writes raw bytes on one connection and collects what comes back until `until` matches. */
  function exchange(data: string, until: RegExp): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(stack.port, '127.0.0.1');
      let out = '';
      const timer = setTimeout(() => {
        socket.destroy();
        resolve(out);
      }, 5000);
      socket.on('data', (chunk) => {
        out += chunk;
        if (until.test(out)) {
          clearTimeout(timer);
          socket.destroy();
          resolve(out);
        }
      });
      socket.on('error', reject);
      socket.write(data);
    });
  }

  test('a response to HEAD carries no body, so the next response on the connection stays intact', async () => {
    const out = await exchange(
      'HEAD /healthz HTTP/1.1\r\nHost: localhost\r\n\r\nGET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: second\r\n\r\n',
      /\{"status":"ok"\}/,
    );
    const responses = out.split(/(?=HTTP\/1\.1 )/);
    assert.equal(responses.length, 2, JSON.stringify(out));
    const [head, get] = responses;
    assert.match(head, /^HTTP\/1\.1 \d{3} /);
    assert.match(head, /\r\nX-Request-Id: /i);
    assert.ok(head.endsWith('\r\n\r\n'), `HEAD response has content: ${JSON.stringify(head)}`);
    assert.match(get, /^HTTP\/1\.1 200 /);
    assert.match(get, /\r\nX-Request-Id: second\r\n/i);
    assert.ok(get.endsWith('\r\n\r\n{"status":"ok"}'), JSON.stringify(get));
  });
});

describe('content type', () => {
  const body = JSON.stringify({ slug: 'ctype', name: 'C', language: 'en' });

  for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
    test(`${type} with a body is a 415`, async () => {
      const res = await req('POST', '/api/knowledge/sites', { raw: body, headers: { 'content-type': type } });
      assert.equal(res.status, 415);
      assert.equal(typeof res.body.detail, 'string');
    });
  }

  test('a body without any content type is a 415', async () => {
    const res = await req('POST', '/api/knowledge/sites', { raw: body });
    assert.equal(res.status, 415);
    assert.equal(typeof res.body.detail, 'string');
  });

  test('application/json; charset=utf-8 is accepted', async () => {
    const res = await req('POST', '/api/knowledge/sites', {
      raw: JSON.stringify({ slug: 'charset', name: 'C', language: 'en' }),
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.slug, 'charset');
    assert.match(String(res.headers['content-type']), /^application\/json/);
  });
});

describe('malformed bodies', () => {
  test('malformed JSON is a 422 json_invalid at body', async () => {
    const res = await req('POST', '/api/knowledge/sites', { raw: '{"slug": "x",', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 422);
    assert.ok(Array.isArray(res.body.detail));
    assert.equal(res.body.detail[0].type, 'json_invalid');
    assert.equal(res.body.detail[0].loc[0], 'body');
    assert.equal(typeof res.body.detail[0].msg, 'string');
  });

  test('an empty body on POST is a 422 missing at body', async () => {
    const res = await req('POST', '/api/knowledge/sites', { raw: '', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 422);
    assert.deepEqual(res.body, { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] });
  });

  test('a POST without a body at all is a 422 missing at body', async () => {
    const res = await req('POST', '/api/knowledge/sites');
    assert.equal(res.status, 422);
    assert.deepEqual(res.body, { detail: [{ loc: ['body'], msg: 'Field required', type: 'missing' }] });
  });

  test('a JSON array as body is a 422 model_attributes_type at body', async () => {
    const res = await req('POST', '/api/knowledge/sites', { body: [{ slug: 'a', name: 'A', language: 'en' }] });
    assert.equal(res.status, 422);
    assert.equal(res.body.detail.length, 1);
    assert.equal(res.body.detail[0].type, 'model_attributes_type');
    assert.deepEqual(res.body.detail[0].loc, ['body']);
  });

  test('every validation error of a body is listed', async () => {
    const res = await req('POST', '/api/knowledge/sites', { body: { name: '' } });
    assert.equal(res.status, 422);
    const locs = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
    assert.ok(locs.includes('body.slug'));
    assert.ok(locs.includes('body.language'));
    assert.ok(locs.includes('body.name'));
  });
});

describe('routing errors', () => {
  test('an unknown route is a JSON 404 Not Found', async () => {
    const res = await req('GET', '/api/knowledge/no-such-thing');
    assert.equal(res.status, 404);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.deepEqual(res.body, { detail: 'Not Found' });
  });

  test('an unknown route is a 404 on any host, even without a tenant', async () => {
    const res = await stack.request('GET', '/nowhere', { host: `localhost:${stack.port}` });
    seen.push(res);
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { detail: 'Not Found' });
  });

  test('a known path with a wrong method is a 405 with Allow', async () => {
    const res = await req('PATCH', '/api/knowledge/sites', { body: {} });
    assert.equal(res.status, 405);
    assert.equal(typeof res.body.detail, 'string');
    const allow = String(res.headers.allow).split(',').map((m) => m.trim()).sort();
    assert.deepEqual(allow, ['GET', 'POST']);
  });

  test('405 on a parameterised path lists its methods', async () => {
    const res = await req('POST', '/api/knowledge/sites/some-site', { body: {} });
    assert.equal(res.status, 405);
    const allow = String(res.headers.allow).split(',').map((m) => m.trim()).sort();
    assert.deepEqual(allow, ['DELETE', 'GET', 'PUT']);
  });
});

describe('X-Request-Id', () => {
  test('an inbound X-Request-Id is echoed', async () => {
    const res = await req('GET', '/api/knowledge/sites', { headers: { 'x-request-id': 'abc-123' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers['x-request-id'], 'abc-123');
  });

  test('a generated X-Request-Id is a UUID and differs per request', async () => {
    const a = await req('GET', '/api/knowledge/sites');
    const b = await req('GET', '/api/knowledge/sites');
    assert.match(String(a.headers['x-request-id']), UUID_RE);
    assert.match(String(b.headers['x-request-id']), UUID_RE);
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
  });

  test('an unusable inbound X-Request-Id is replaced by a UUID', async () => {
    const res = await req('GET', '/healthz', { headers: { 'x-request-id': 'has spaces and "quotes"' } });
    assert.match(String(res.headers['x-request-id']), UUID_RE);
  });

  test('error responses carry X-Request-Id too', async () => {
    const responses = [
      await req('GET', '/api/knowledge/no-such-thing'),
      await req('PATCH', '/api/knowledge/sites', { body: {} }),
      await req('GET', '/api/knowledge/sites', { key: 'nope' }),
      await req('POST', '/api/knowledge/sites', { raw: 'x', headers: { 'content-type': 'text/plain' } }),
      await stack.request('GET', '/api/knowledge/sites', { tenant: 'nosuch' }),
    ];
    for (const res of responses) {
      assert.ok(res.status >= 400);
      assert.match(String(res.headers['x-request-id']), UUID_RE, `status ${res.status}`);
    }
  });
});

describe('probes and metrics', () => {
  test('/healthz answers 200', async () => {
    const res = await stack.request('GET', '/healthz');
    assert.equal(res.status, 200);
    assert.ok(res.headers['x-request-id']);
  });

  test('/readyz answers 200 {status: ready}, with the semantic search and HTTP front states', async () => {
    // The query model loads in the background after the start (503 with semantic: loading meanwhile).
    const res = await eventually(async () => {
      const answer = await stack.request('GET', '/readyz');
      return answer.status === 200 ? answer : undefined;
    }, '/readyz 200');
    assert.deepEqual(res.body, { status: 'ready', semantic: 'ready', http: process.env.KCS_HTTP === 'node' ? 'node' : 'uws' });
  });

  test('/metrics is Prometheus text with request counts and latency by route', async () => {
    const site = await req('GET', '/api/knowledge/sites/some-unknown-site');
    assert.equal(site.status, 404);
    const res = await stack.request('GET', '/metrics');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain/);
    assert.equal(typeof res.body, 'string');
    const text = res.text;
    assert.match(text, /^# TYPE kcs_http_requests_total counter$/m);
    assert.match(text, /^kcs_http_requests_total\{[^}]*route="\/api\/knowledge\/sites\/:site_id"[^}]*\} \d+/m);
    assert.match(text, /^kcs_http_request_duration_seconds_bucket\{[^}]*route="\/api\/knowledge\/sites\/:site_id"[^}]*\} \d+/m);
    // Route labels are patterns, never raw paths.
    assert.doesNotMatch(text, /route="\/api\/knowledge\/sites\/some-unknown-site"/);
  });
});


test('no response body carries a stack trace', async () => {
  // A few more error responses of different kinds, then every one seen in this file.
  seen.push(await req('GET', '/api/knowledge/sites/%E0%A4%A'));
  seen.push(await req('PUT', '/api/knowledge/settings', { body: { rate_limit_per_s: 'lots' } }));
  seen.push(await req('POST', '/api/knowledge/categories', { raw: '[', headers: { 'content-type': 'application/json' } }));
  seen.push(await stack.request('GET', '/api/knowledge/sites', { host: 'nosuch.localhost' }));
  const errors = seen.filter((r) => r.status >= 400);
  assert.ok(errors.length >= 10);
  for (const res of errors) {
    assert.ok(!(res.text.includes('at ') && res.text.includes('.ts:')), `stack trace in a ${res.status}: ${res.text.slice(0, 300)}`);
    assert.doesNotMatch(res.text, /node_modules|\/src\//);
    assert.ok(res.status < 500, `unexpected ${res.status}: ${res.text}`);
  }
});
