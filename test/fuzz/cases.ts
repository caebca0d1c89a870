// The fuzz case of one route template: mutated path, query, body, headers, credential and Host.
// Most cases stay close to the valid template (so they reach the handler); some break it whole.
import fc from 'fast-check';
import { SCOPES } from '../../src/schemas/scopes.js';
import { SHOP_ORIGIN, TEMPLATES, routeName, type RouteTemplate } from './routes.js';
import { PROTO_KEYS, RawJson, Ref, deepNesting, headerSafe, hostileJson, hostileString, oddEncoded, percentEncode, toJsonText, wtf8 } from './values.js';

/** Who the request claims to be; the oracle knows which of these may never succeed on a scoped route. */
export type AuthMode = { kind: 'key' } | { kind: 'readOnly' } | { kind: 'search' } | { kind: 'otherTenant' } | { kind: 'none' } | { kind: 'header'; value: string };
/** `{slug}`, `{other}` and `{port}` are filled in when sent. */
export type HostPlan = { kind: 'fuzz' } | { kind: 'other' } | { kind: 'odd'; pattern: string };
/** A body: a value to serialise by `encoding`, or bytes as they are. */
export type BodyPlan =
  | { encoding: 'json' | 'form' | 'ndjson'; value: unknown; contentType: string | null }
  | { encoding: 'bytes'; bytes: Buffer | ((json: string) => Buffer); value: unknown; contentType: string | null };

export interface FuzzCase {
  template: RouteTemplate;
  method: string;
  /** Segment values: text to percent-encode, an already encoded segment, or a fixture. */
  params: Record<string, { encoded: string } | string | Ref>;
  pathSuffix: string;
  /** Encoded key, and the value: text to percent-encode, already encoded, or a fixture. */
  query: Array<[string, { encoded: string } | string | Ref]> | { encoded: string };
  body: BodyPlan | null;
  headers: Record<string, string>;
  auth: AuthMode;
  host: HostPlan;
}

// ---- values inside a template ------------------------------------------------------------------

type Path = Array<string | number>;

/** Every path into a JSON template (objects and arrays included, not the root). */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (value instanceof Ref || value instanceof RawJson || value === null || typeof value !== 'object') return [];
  const keys: Array<string | number> = Array.isArray(value) ? value.map((_, i) => i) : Object.keys(value);
  return keys.flatMap((k) => [[...prefix, k], ...pathsOf((value as Record<string | number, unknown>)[k], [...prefix, k])]);
}

/** Sets an own property even for `__proto__` (plain assignment would set the prototype). */
const defineOwn = (target: object, key: string | number, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });

/** A copy of `value` with `path` set to `replacement` (or removed when `remove`). */
function setAt(value: unknown, path: Path, replacement: unknown, remove = false): unknown {
  if (path.length === 0) return replacement;
  if (value === null || typeof value !== 'object' || value instanceof Ref || value instanceof RawJson) return value;
  const copy = (Array.isArray(value) ? [...value] : { ...value }) as Record<string | number, unknown>;
  const [head, ...rest] = path;
  if (remove && rest.length === 0) {
    if (Array.isArray(copy)) (copy as unknown[]).splice(head as number, 1);
    else delete copy[head];
    return copy;
  }
  defineOwn(copy, head, setAt(copy[head], rest, replacement, remove));
  return copy;
}

function mutatedValue(template: unknown): fc.Arbitrary<unknown> {
  const paths = pathsOf(template);
  const objectPaths: Path[] = [[], ...paths.filter((p) => {
    const v = p.reduce<unknown>((node, k) => (node as Record<string | number, unknown>)[k], template);
    return v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Ref) && !(v instanceof RawJson);
  })];
  const somePath = fc.constantFrom(...(paths.length > 0 ? paths : [[]]));
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(template) },
    {
      weight: 8,
      arbitrary: fc.array(fc.tuple(somePath, hostileJson), { minLength: 1, maxLength: 3 })
        .map((changes) => changes.reduce<unknown>((v, [path, hostile]) => setAt(v, path, hostile), template)),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom(...objectPaths), fc.oneof(fc.constantFrom(...PROTO_KEYS), hostileString), hostileJson)
        .map(([path, key, extra]) => {
          const at = path.reduce<unknown>((node, k) => (node as Record<string | number, unknown>)[k], template) as object;
          return setAt(template, path, defineOwn({ ...at }, key, extra));
        }),
    },
    { weight: 1, arbitrary: fc.array(somePath, { minLength: 1, maxLength: 4 }).map((drops) => drops.reduce<unknown>((v, p) => setAt(v, p, undefined, true), template)) },
    { weight: 1, arbitrary: hostileJson },
  );
}

// ---- body ----------------------------------------------------------------------------------------

const ODD_CONTENT_TYPES = [
  'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/json; charset=utf-16', 'application/json, text/plain',
  'APPLICATION/JSON', 'application/vnd.api+json', '', 'application/jsonx', ';', 'application/x-ndjson', 'application/json; charset="\u00ff"', '*/*',
];

/** JSON text broken in the ways a parser must refuse (or must cope with). */
const brokenJson: fc.Arbitrary<(json: string) => Buffer> = fc.oneof(
  fc.nat({ max: 400 }).map((cut) => (json: string) => Buffer.from(json.slice(0, Math.max(1, Math.min(cut, json.length - 1))))),
  fc.constantFrom(
    (json: string) => Buffer.from(`${json},`),
    (json: string) => Buffer.from(`\ufeff${json}`),
    (json: string) => Buffer.from(`${json}${json}`),
    (json: string) => Buffer.from(json.replace(/"/g, "'")),
    (json: string) => Buffer.from(json.replace(/:/, ':NaN,"x":')),
    (json: string) => Buffer.from(`/* c */${json}`),
    (json: string) => Buffer.from(json.replace(/"([^"]*)"/, '"$1\u0001\n"')),
    (json: string) => Buffer.from(json.replace(/"([^"]*)"/, '"\\u12"')),
    // Lone surrogates as raw (invalid UTF-8) bytes instead of the \u escapes JSON.stringify writes.
    (json: string) => wtf8(json.replace(/\\u(d[89a-f][0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))),
    (json: string) => Buffer.concat([Buffer.from(json.slice(0, 2)), Buffer.from([0xff, 0xfe, 0xc0, 0x80]), Buffer.from(json.slice(2))]),
    () => Buffer.from('null'),
    () => Buffer.from(' '),
    () => Buffer.alloc(0),
    () => Buffer.from('{"a":1e999999}'),
  ),
);

const formValue = (template: Record<string, unknown>): fc.Arbitrary<Array<[string, unknown]>> => {
  const entries = Object.entries(template);
  const keys = entries.map(([k]) => k);
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant(entries) },
    {
      weight: 6,
      arbitrary: fc.array(fc.tuple(fc.constantFrom(...keys), hostileString), { minLength: 1, maxLength: 3 })
        .map((changes) => entries.map(([k, v]) => [k, changes.find(([c]) => c === k)?.[1] ?? v] as [string, unknown])),
    },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...keys), hostileString).map(([k, v]) => [...entries, [k, v]] as Array<[string, unknown]>) },
    { weight: 1, arbitrary: fc.subarray(entries) },
    { weight: 1, arbitrary: fc.tuple(fc.oneof(fc.constantFrom(...PROTO_KEYS), hostileString), hostileString).map((extra) => [...entries, extra]) },
  );
};

function bodyPlan(template: RouteTemplate): fc.Arbitrary<BodyPlan | null> {
  const body = template.body;
  const strayJson = hostileJson.map((value): BodyPlan => ({ encoding: 'json', value, contentType: 'application/json' }));
  if (!body) return fc.oneof({ weight: 8, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: strayJson });
  const oddType = fc.constantFrom(...ODD_CONTENT_TYPES);
  if (body.kind === 'form') {
    const FORM = 'application/x-www-form-urlencoded';
    return fc.oneof(
      { weight: 8, arbitrary: formValue(body.value as Record<string, unknown>).map((value): BodyPlan => ({ encoding: 'form', value, contentType: FORM })) },
      { weight: 1, arbitrary: fc.tuple(formValue(body.value as Record<string, unknown>), oddType).map(([value, contentType]): BodyPlan => ({ encoding: 'form', value, contentType })) },
      { weight: 1, arbitrary: fc.oneof(oddEncoded, fc.constantFrom('&&&', '=', '==&=', 'a=%', '%ZZ=1', 'grant_type', '&grant_type=&grant_type=client_credentials'))
        .map((text): BodyPlan => ({ encoding: 'bytes', bytes: Buffer.from(text, 'latin1'), value: text, contentType: FORM })) },
      { weight: 1, arbitrary: strayJson },
    );
  }
  if (body.kind === 'ndjson') {
    const items = body.value as unknown[];
    const NDJSON = 'application/x-ndjson';
    return fc.oneof(
      { weight: 6, arbitrary: fc.array(mutatedValue(items[0]), { minLength: 1, maxLength: 5 }).map((value): BodyPlan => ({ encoding: 'ndjson', value, contentType: NDJSON })) },
      { weight: 2, arbitrary: fc.array(mutatedValue(items[0]), { maxLength: 5 }).map((value): BodyPlan => ({ encoding: 'json', value, contentType: 'application/json' })) },
      { weight: 1, arbitrary: fc.constantFrom(10_001, 3).map((n): BodyPlan => ({ encoding: 'bytes', bytes: Buffer.from('{}\n'.repeat(n)), value: `{}×${n}`, contentType: NDJSON })) },
      { weight: 1, arbitrary: fc.tuple(brokenJson, oddType).map(([bytes, contentType]): BodyPlan => ({ encoding: 'bytes', bytes, value: items, contentType })) },
      { weight: 1, arbitrary: deepNesting.map((value): BodyPlan => ({ encoding: 'ndjson', value: [value, value], contentType: NDJSON })) },
    );
  }
  if (body.kind === 'text') return textBody(body.value as string[]);
  return fc.oneof(
    { weight: 12, arbitrary: mutatedValue(body.value).map((value): BodyPlan => ({ encoding: 'json', value, contentType: 'application/json' })) },
    { weight: 2, arbitrary: fc.tuple(mutatedValue(body.value), brokenJson).map(([value, bytes]): BodyPlan => ({ encoding: 'bytes', bytes, value, contentType: 'application/json' })) },
    { weight: 1, arbitrary: fc.tuple(mutatedValue(body.value), oddType).map(([value, contentType]): BodyPlan => ({ encoding: 'json', value, contentType })) },
    { weight: 1, arbitrary: fc.constant<BodyPlan>({ encoding: 'bytes', bytes: Buffer.alloc(0), value: '', contentType: 'application/json' }) },
    { weight: 1, arbitrary: fc.constant<BodyPlan>({ encoding: 'bytes', bytes: Buffer.from(body.kind === 'json' ? toJsonText(body.value) : ''), value: body.value, contentType: null }) },
  );
}

/**
 * A text file of lines (a Solr synonyms file): the template's lines with hostile ones among them, lines
 * of control characters and escapes, a line of thousands of entries either side of `=>`, and files of
 * many lines (past the tenant's caps, or big enough to hold up a process that reads them at once).
 */
function textBody(lines: string[]): fc.Arbitrary<BodyPlan> {
  const TEXT = 'text/plain';
  const text = (content: string, contentType: string | null = TEXT): BodyPlan => ({ encoding: 'bytes', bytes: Buffer.from(content), value: content.slice(0, 200), contentType });
  const oddLine = fc.oneof(hostileString, fc.constantFrom('#', '\\#x, y', '=>', 'a => b => c', 'a,,b', ',', '\\', 'a\\, b, c', 'x\u0000y, z', '  , ', 'a=>', '=>b'));
  const entries = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(', ');
  return fc.oneof(
    { weight: 6, arbitrary: fc.array(fc.oneof(fc.constantFrom(...lines), oddLine), { minLength: 1, maxLength: 8 }).map((l) => text(l.join('\n'))) },
    { weight: 2, arbitrary: fc.tuple(fc.array(oddLine, { maxLength: 4 }), fc.constantFrom(...ODD_CONTENT_TYPES)).map(([l, type]) => text(l.join('\n'), type)) },
    { weight: 1, arbitrary: fc.constantFrom(6000, 60).map((n) => text(`${entries(n, 'k')} => ${entries(49, 'w')}\n`)) },
    { weight: 1, arbitrary: fc.constantFrom(20_000, 2).map((n) => text(Array.from({ length: n }, (_, i) => `fa${i}, fb${i}`).join('\n'))) },
    { weight: 1, arbitrary: fc.constant(text('\n'.repeat(100_000))) },
    { weight: 1, arbitrary: brokenJson.map((bytes): BodyPlan => ({ encoding: 'bytes', bytes, value: 'bytes', contentType: TEXT })) },
  );
}

// ---- path, query, headers, credential, host ------------------------------------------------------

/** Text for a path or query: URLs of hundreds of KiB are the front end's protocol limit (414/431), not the handlers'. */
const urlText = hostileString.filter((text) => text.length <= 5000);

const segment: fc.Arbitrary<{ encoded: string } | string> = fc.oneof(
  oddEncoded.map((encoded) => ({ encoded })),
  urlText,
  fc.uuid({ version: 4 }),
);

function paramsPlan(template: RouteTemplate): fc.Arbitrary<FuzzCase['params']> {
  const params = template.params ?? {};
  const names = Object.keys(params);
  if (names.length === 0) return fc.constant({});
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(params) },
    { weight: 3, arbitrary: fc.tuple(fc.constantFrom(...names), segment).map(([name, value]) => ({ ...params, [name]: value })) },
  );
}

function queryPlan(template: RouteTemplate): fc.Arbitrary<FuzzCase['query']> {
  const pairs: Array<[string, string | Ref]> = Object.entries(template.query ?? {});
  const value = fc.oneof(urlText, oddEncoded.map((encoded) => ({ encoded })));
  const keys = pairs.length > 0 ? fc.constantFrom(...pairs.map(([k]) => k)) : fc.constantFrom('limit', 'offset', 'site_id');
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant(pairs) },
    { weight: 4, arbitrary: fc.tuple(keys, value).map(([k, v]) => [...pairs.filter(([p]) => p !== k), [k, v]] as FuzzCase['query']) },
    { weight: 1, arbitrary: fc.tuple(keys, value).map(([k, v]) => [...pairs, [k, v]] as FuzzCase['query']) },
    { weight: 1, arbitrary: fc.tuple(fc.oneof(fc.constantFrom(...PROTO_KEYS), urlText.map(percentEncode)), value).map((extra) => [...pairs, extra] as FuzzCase['query']) },
    { weight: 1, arbitrary: fc.subarray(pairs) },
    { weight: 1, arbitrary: fc.oneof(oddEncoded, fc.constantFrom('&&&', '=', '==&=', 'a=%', '%ZZ=1', 'limit', 'limit=&limit=5', '?', '#x')).map((encoded) => ({ encoded })) },
  );
}

// Bounded: headers of many KiB are the front end's protocol limits (431 or a reset), not the handlers'.
const headerText = hostileString.map((text) => headerSafe(text).slice(0, 1000));
const IF_MATCH = ['"1"', '1', 'W/"1"', '*', '"99999999999999999999"', '99999999999999999999', '-1', '"-0"', '1.5', '"', '""', '1, 2', 'null', '"1e3"', '0'];
const X_SCOPES = ['', ' ', 'catalog:read', 'admin', 'catalog:read knowledge:read', 'admin admin', 'catalog:write,admin', 'ADMIN', '*', 'admin\tcatalog:write', 'visibility:restricted'];
const ACCEPT = ['text/html', '*/*', '', 'application/json', 'text/event-stream', 'application/json, text/event-stream', 'application/*;q=0'];

/** `value` in one case of `oneIn`, else no header. */
const sometimes = <T>(value: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | null> =>
  fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary: value });

const headersPlan: fc.Arbitrary<Record<string, string>> = fc
  .record({
    'x-scopes': sometimes(fc.oneof(fc.constantFrom(...X_SCOPES), fc.array(fc.constantFrom(...SCOPES, 'x', 'admin '), { maxLength: 4 }).map((a) => a.join(' '))), 6),
    'x-audit-source': sometimes(headerText, 6),
    'if-match': sometimes(fc.oneof(fc.constantFrom(...IF_MATCH), headerText), 6),
    'x-request-id': sometimes(headerText, 10),
    accept: sometimes(fc.constantFrom(...ACCEPT), 10),
    origin: sometimes(fc.oneof(fc.constantFrom('null', 'http://evil.test', '', SHOP_ORIGIN, SHOP_ORIGIN.toUpperCase(), `${SHOP_ORIGIN}/`), headerText), 15),
    cookie: sometimes(fc.oneof(fc.constantFrom('kcs_csrf_x=y', '=;=;', 'a'), headerText), 15),
  })
  .map((h) => Object.fromEntries(Object.entries(h).filter((e): e is [string, string] => e[1] !== null)));

const authPlan: fc.Arbitrary<AuthMode> = fc.oneof(
  { weight: 16, arbitrary: fc.constant<AuthMode>({ kind: 'key' }) },
  { weight: 1, arbitrary: fc.constant<AuthMode>({ kind: 'readOnly' }) },
  { weight: 1, arbitrary: fc.constant<AuthMode>({ kind: 'search' }) },
  { weight: 1, arbitrary: fc.constant<AuthMode>({ kind: 'otherTenant' }) },
  { weight: 1, arbitrary: fc.constant<AuthMode>({ kind: 'none' }) },
  {
    weight: 1,
    arbitrary: fc.oneof(
      fc.constantFrom('Bearer', 'Bearer ', 'bearer kcs_x', 'Bearer kcs_00000000-0000-4000-8000-000000000000_secret', 'Bearer kcs_at_x', 'Basic', 'Basic !!!', 'Basic Og==', 'Bearer a b', 'Negotiate x'),
      headerText.map((t) => `Bearer ${t}`),
      hostileString.map((t) => `Basic ${wtf8(t).subarray(0, 750).toString('base64')}`),
    ).map((value): AuthMode => ({ kind: 'header', value })),
  },
);

const ODD_HOSTS = [
  '{slug}.localhost:99999', '{slug}.localhost:65536', '{slug}.localhost:-1', '{slug}.localhost:', '{slug}.localhost:0', '{slug}.localhost:999999999999999999999999',
  '', '{slug}.localhost:{port}:{port}', 'localhost', 'localhost:{port}', '{SLUG}.LOCALHOST:{port}', '{slug}.localhost.:{port}', 'tënant.localhost:{port}', '[::1]:{port}',
  '{slug}.localhost:{port} ', '..localhost', '.localhost', `${'a'.repeat(300)}.localhost`, '{slug}%2elocalhost', '{slug}.{other}.localhost:{port}', '{slug}.evil.test',
  '{other}.localhost:{port}, {slug}.localhost:{port}', '__proto__.localhost:{port}', 'constructor.localhost',
];
const hostPlan: fc.Arbitrary<HostPlan> = fc.oneof(
  { weight: 18, arbitrary: fc.constant<HostPlan>({ kind: 'fuzz' }) },
  { weight: 1, arbitrary: fc.constant<HostPlan>({ kind: 'other' }) },
  { weight: 1, arbitrary: fc.oneof(fc.constantFrom(...ODD_HOSTS), headerText).map((pattern): HostPlan => ({ kind: 'odd', pattern })) },
);

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'PROPFIND'];
const SUFFIXES = ['/', '//', '/..', '/%2e%2e', '/.', '/%2F', '/x', '%00', ';x', '/../../healthz'];

export function caseOf(template: RouteTemplate): fc.Arbitrary<FuzzCase> {
  return fc.record({
    template: fc.constant(template),
    method: fc.oneof({ weight: 19, arbitrary: fc.constant(template.method) }, { weight: 1, arbitrary: fc.constantFrom(...METHODS) }),
    params: paramsPlan(template),
    pathSuffix: fc.oneof({ weight: 15, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constantFrom(...SUFFIXES) }),
    query: queryPlan(template),
    body: bodyPlan(template),
    headers: headersPlan,
    auth: authPlan,
    host: hostPlan,
  });
}

/** Cases for every template, in equal shares. */
export const anyCase: fc.Arbitrary<FuzzCase> = fc.oneof(...TEMPLATES.map(caseOf));

/** The route a case was aimed at, with the method it was sent with. */
export const caseRoute = (c: FuzzCase): string => (c.method === c.template.method ? routeName(c.template) : `${c.method} ${c.template.path}`);
