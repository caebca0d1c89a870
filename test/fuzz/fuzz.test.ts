// Property-based fuzz of the whole HTTP surface: hostile bodies, queries, headers and
// paths, mutated from a valid template per route, against a real kcs and redis-server. Every
// answer must be a non-5xx in the documented shape, no scoped route may succeed for a caller
// without its credential or scope, /readyz stays 200, and another tenant's data stays as it was.
// KCS_FUZZ_RUNS sets the number of cases (default 3000), KCS_FUZZ_SEED replays a run.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { pino } from 'pino';
import { startStack, type Stack, type TenantFixture } from '../helpers/stack.js';
import { anyCase, caseRoute, type FuzzCase } from './cases.js';
import { fuzzFixtures, makeVictim, otherTenantData, snapshot } from './fixtures.js';
import { SHOP_ORIGIN } from './routes.js';
import { judge } from './oracle.js';
import { send, toWire, type FuzzContext, type WireAnswer, type WireRequest } from './wire.js';

const RUNS = Number(process.env.KCS_FUZZ_RUNS ?? 3000);
const SEED = Number(process.env.KCS_FUZZ_SEED ?? 13);
/** A request unanswered this long counts as a hang (a bound, not a timing assertion). */
const HANG_MS = Number(process.env.KCS_FUZZ_HANG_MS ?? 30_000);
const READY_EVERY = 250;
const READ_ONLY_SCOPES = ['catalog:read', 'knowledge:read'];
const SEARCH_SCOPES = ['search'];

/** Error logs of the server by request id: the stack of a 5xx goes into the report. */
const serverErrors = new Map<string, string>();
const log = pino({ level: 'error', base: null }, {
  write(line: string) {
    const entry = JSON.parse(line) as { reqId?: string; err?: { type?: string; message?: string; stack?: string } | string; msg?: string };
    const err = typeof entry.err === 'object' ? `${entry.err.stack ?? `${entry.err.type}: ${entry.err.message}`}` : `${entry.msg}: ${entry.err ?? ''}`;
    serverErrors.set(entry.reqId ?? 'none', err.split('\n').slice(0, 6).join('\n'));
  },
});

interface FailureClass {
  route: string;
  reason: string;
  count: number;
  /** The smallest request of the class seen, and its answer. */
  request: WireRequest;
  answer: string;
  serverLog: string;
  caseIndex: number;
}

let stack: Stack;
let fuzz: TenantFixture;
let other: TenantFixture;
let ctx: FuzzContext;
let otherBefore: Record<string, unknown>;

before(async () => {
  stack = await startStack({ KCS_EMBEDDER: 'none', KCS_OAUTH_RATE_PER_S: '0', KCS_OAUTH_ADDRESS_RATE_PER_S: '0' }, { log });
  await waitUntilReady();
  fuzz = await stack.tenant();
  other = await stack.tenant();
  const ids = await fuzzFixtures(fuzz);
  await otherTenantData(other);
  otherBefore = await snapshot(other);
  ctx = {
    port: stack.port, fuzzSlug: fuzz.tenant.slug, otherSlug: other.tenant.slug, ids,
    keys: { all: fuzz.key, readOnly: await fuzz.keyWith(READ_ONLY_SCOPES), search: await searchKey(fuzz), other: other.key },
    readOnlyScopes: READ_ONLY_SCOPES,
    searchScopes: SEARCH_SCOPES,
  };
});
after(() => stack?.close());

/** A storefront key: `search` alone, usable from SHOP_ORIGIN. */
async function searchKey(t: TenantFixture): Promise<string> {
  const { key } = await stack.services.apiKeys.create(t.tenant.id, { userId: t.user.id, name: 'shop', scopes: SEARCH_SCOPES, allowedOrigins: [SHOP_ORIGIN] });
  return key;
}

async function waitUntilReady(): Promise<void> {
  for (;;) {
    const res = await stack.request('GET', '/readyz');
    if (res.status === 200) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const sizeOf = (w: WireRequest) => w.path.length + (w.body?.length ?? 0) + Object.values(w.headers).join('').length;

const describeAnswer = (answer: WireAnswer): string =>
  answer.kind === 'no-answer' ? answer.error : `${answer.status} ${answer.headers['content-type'] ?? ''} ${answer.body.toString('utf8').slice(0, 400)}`;

const describeRequest = (w: WireRequest): string => {
  const headers = Object.fromEntries(Object.entries(w.headers).map(([k, v]) => [k, v.length > 120 ? `${v.slice(0, 120)}…(${v.length} chars)` : v]));
  const body = w.body === null ? '' : `\n      body (${w.body.length} bytes): ${JSON.stringify(w.body.toString('latin1').slice(0, 500))}`;
  return `${w.method} ${w.path.slice(0, 500)}${w.path.length > 500 ? `…(${w.path.length} chars)` : ''}\n      headers: ${JSON.stringify(headers)}${body}`;
};

/** Undoes what a case may have taken away from the next ones: a deleted victim, tenant settings. */
async function heal(c: FuzzCase, answer: WireAnswer): Promise<void> {
  const kind = c.template.consumes;
  if (!kind) return;
  if (kind === 'settings') {
    const tenant = await stack.services.tenants.require(fuzz.tenant.slug);
    await stack.services.tenants.updateSettings(tenant, { rate_limit_per_s: 0, oauth_open_registration: false, variant_strategy: 'all' });
    return;
  }
  if (answer.kind === 'answer' && answer.status < 300) Object.assign(ctx.ids, await makeVictim(fuzz, kind, ctx.ids));
}

test(`fuzz: ${RUNS} hostile requests across every route family (seed ${SEED})`, async () => {
  const failures = new Map<string, FailureClass>();
  const record = (route: string, reason: string, request: WireRequest, answer: string, serverLog: string, caseIndex: number) => {
    const key = `${route} | ${reason} | ${serverLog.split('\n')[0].replace(/\d+/g, 'N')}`;
    const known = failures.get(key);
    if (!known) failures.set(key, { route, reason, count: 1, request, answer, serverLog, caseIndex });
    else {
      known.count++;
      if (sizeOf(request) < sizeOf(known.request)) Object.assign(known, { request, answer, serverLog, caseIndex });
    }
  };
  let index = 0;
  let skipped = 0;
  /** How many answers of each status: shows how many cases got past validation to the handlers. */
  const statuses = new Map<string, number>();
  const started = performance.now();
  await fc.assert(
    fc.asyncProperty(anyCase, async (c) => {
      index++;
      // The other tenant's own key on its own Host would be a legitimate write there: not a case.
      if (c.host.kind === 'other' && c.auth.kind === 'otherTenant') return true;
      const wire = toWire(c, ctx);
      const answer = await send(stack.port, wire, HANG_MS);
      const statusClass = answer.kind === 'answer' ? `${answer.status}` : 'none';
      statuses.set(statusClass, (statuses.get(statusClass) ?? 0) + 1);
      if (answer.kind === 'no-answer' && answer.error.startsWith('client refused')) skipped++;
      else {
        const violation = judge(c, answer, ctx);
        if (violation) {
          const requestId = answer.kind === 'answer' ? String(answer.headers['x-request-id'] ?? '') : '';
          // A connection that ends without an answer is a front-end matter: one class per method, whatever the path.
          const route = answer.kind === 'no-answer' ? `${c.method} (any path)` : caseRoute(c);
          record(route, violation.reason, wire, `${describeAnswer(answer)}${violation.note ? ` (${violation.note})` : ''}`, serverErrors.get(requestId) ?? '', index);
        }
      }
      await heal(c, answer);
      if (index % READY_EVERY === 0) {
        const ready = await stack.request('GET', '/readyz');
        if (ready.status !== 200) record('GET /readyz', `not ready after case ${index}`, { method: 'GET', path: '/readyz', headers: {}, body: null }, `${ready.status} ${ready.text}`, '', index);
      }
      return true;
    }),
    { numRuns: RUNS, seed: SEED, endOnFailure: true },
  );
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.log(`fuzz: ${index} cases (${skipped} refused by the client) in ${seconds} s, ${failures.size} failure classes, seed ${SEED}; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`);

  const ready = await stack.request('GET', '/readyz');
  assert.equal(ready.status, 200, `not ready after the run: ${ready.text}`);
  assert.deepEqual(await snapshot(other), otherBefore, "the other tenant's data changed during the fuzz run");

  const report = [...failures.values()].sort((a, b) => a.route.localeCompare(b.route)).map((f, i) =>
    `  ${i + 1}. ${f.route}: ${f.reason} (×${f.count}, first smallest at case ${f.caseIndex})\n` +
    `      ${describeRequest(f.request)}\n      answer: ${f.answer}${f.serverLog ? `\n      server: ${f.serverLog.replace(/\n/g, '\n        ')}` : ''}`);
  assert.equal(failures.size, 0, `${failures.size} failure classes (replay: KCS_FUZZ_SEED=${SEED} KCS_FUZZ_RUNS=${RUNS} npm run fuzz):\n${report.join('\n')}`);
});
