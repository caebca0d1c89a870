// OpenAPI 3.1 document generated from the route table: every route's params, query, body,
// responses and errors come from the same TypeBox schemas that validate requests.
import type { TSchema } from '@sinclair/typebox';
import { ErrorBody, ValidationErrorBody } from '../schemas/common.js';
import type { Route } from '../http/route.js';
import type { ScopeRule } from '../schemas/scopes.js';

const ERROR_TEXT: Record<number, string> = {
  401: 'Missing, unknown, expired or other-tenant token (WWW-Authenticate carries resource_metadata)',
  403: 'A required scope is missing (WWW-Authenticate: Bearer error="insufficient_scope"), or the API key does not allow the request\'s Origin',
  404: 'Unknown tenant, or the resource does not exist in this tenant',
  409: 'Conflict with the current state',
  412: 'If-Match does not match the current version',
  413: 'Body larger than the limit',
  415: 'Unsupported Content-Type',
  422: 'Validation error',
  429: 'Rate limit exceeded (Retry-After)',
  503: 'Data store unavailable (Retry-After)',
};

type Json = Record<string, unknown>;

const requiredScopes = (rule: ScopeRule): readonly string[] => ('anyOf' in rule ? rule.anyOf : rule.scopes);

export function buildOpenApi(routes: Route[], info: { title: string; version: string }): Json {
  const components: Record<string, Json> = {};
  const ref = (schema: TSchema): Json => toJson(schema, components);
  const paths: Record<string, Record<string, Json>> = {};

  for (const route of routes) {
    const path = route.path.replace(/:(\w+)/g, '{$1}');
    const parameters: Json[] = [];
    for (const [where, schema] of [['path', route.params], ['query', route.query ?? route.documented?.query]] as const) {
      if (!schema?.properties) continue;
      const required = new Set<string>(schema.required ?? []);
      for (const [name, prop] of Object.entries(schema.properties as Record<string, TSchema>)) {
        parameters.push({ name, in: where, required: where === 'path' || required.has(name), description: prop.description, schema: ref(prop) });
      }
    }

    const responses: Record<string, Json> = {};
    for (const [status, doc] of Object.entries(route.responses)) {
      responses[status] = {
        description: doc.description,
        ...(doc.schema ? { content: { [doc.contentType ?? 'application/json']: { schema: ref(doc.schema) } } } : {}),
        ...(doc.contentType && !doc.schema ? { content: { [doc.contentType]: {} } } : {}),
      };
    }
    const errors = new Set<number>(route.errors ?? []);
    if (route.auth !== 'none') errors.add(404);
    // 403 only where a scope is required.
    if (typeof route.auth === 'object') [401, ...(requiredScopes(route.auth).length > 0 ? [403] : []), 429].forEach((s) => errors.add(s));
    if (route.params || route.query || route.body) errors.add(422);
    if (route.body || route.bodyKind === 'raw') [413, 415].forEach((s) => errors.add(s));
    errors.add(503);
    for (const status of [...errors].sort()) {
      const schema = status === 422 ? ValidationErrorBody : ErrorBody;
      responses[String(status)] = { description: ERROR_TEXT[status] ?? 'Error', content: { 'application/json': { schema: ref(schema) } } };
    }

    const operation: Json = {
      summary: route.summary,
      ...(route.description ? { description: route.description } : {}),
      tags: route.tags,
      operationId: `${route.method.toLowerCase()}${route.path.replace(/[^A-Za-z0-9]+(\w)?/g, (_, c: string | undefined) => (c ?? '').toUpperCase())}`,
      ...(parameters.length ? { parameters } : {}),
      responses,
    };
    if (typeof route.auth === 'object' && 'anyOf' in route.auth) {
      // Alternatives: a token holding any one of them may call.
      operation.security = route.auth.anyOf.map((scope) => ({ bearer: [scope] }));
      operation['x-any-of-scopes'] = route.auth.anyOf;
    } else if (typeof route.auth === 'object') {
      operation.security = [{ bearer: route.auth.scopes }];
      operation['x-required-scopes'] = route.auth.scopes;
    }
    if (route.body) {
      const type = route.bodyKind === 'form' ? 'application/x-www-form-urlencoded' : 'application/json';
      operation.requestBody = { required: true, content: { [type]: { schema: ref(route.body) } } };
    } else if (route.documented?.body) {
      operation.requestBody = { required: true, content: { [route.documented.body.contentType]: { schema: ref(route.documented.body.schema) } } };
    } else if (route.bodyKind === 'raw') {
      operation.requestBody = { required: true, content: Object.fromEntries((route.contentTypes ?? []).map((t) => [t, {}])) };
    }
    (paths[path] ??= {})[route.method.toLowerCase()] = operation;
  }

  return {
    openapi: '3.1.0',
    info: { ...info, description: 'Knowledge & Product Catalogue Service. The tenant is the leftmost label of the Host name.' },
    servers: [{ url: '{scheme}://{tenant}.{baseDomain}', variables: { scheme: { default: 'http' }, tenant: { default: 'demo' }, baseDomain: { default: 'localhost:8080' } } }],
    paths,
    components: {
      schemas: components,
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key (kcs_…) or OAuth access token' } },
    },
  };
}

/** Plain JSON Schema: named schemas become components, literal unions become enums. */
function toJson(schema: TSchema, components: Record<string, Json>): Json {
  const convert = (node: unknown, top: boolean): unknown => {
    if (Array.isArray(node)) return node.map((n) => convert(n, false));
    if (node === null || typeof node !== 'object') return node;
    const obj = node as Json;
    if (typeof obj.$id === 'string' && !top) {
      if (!(obj.$id in components)) {
        components[obj.$id] = {}; // reserve first: recursive schemas refer to themselves
        components[obj.$id] = convert(obj, true) as Json;
      }
      return { $ref: `#/components/schemas/${obj.$id}` };
    }
    if (Array.isArray(obj.anyOf) && obj.anyOf.length > 0 && obj.anyOf.every((b) => b && typeof b === 'object' && 'const' in b)) {
      return { type: 'string', enum: obj.anyOf.map((b) => (b as Json).const), ...(obj.default !== undefined ? { default: obj.default } : {}), ...(obj.description ? { description: obj.description } : {}) };
    }
    const out: Json = {};
    for (const [key, value] of Object.entries(obj)) {
      if (key === '$id') continue;
      if (key === '$ref' && typeof value === 'string' && !value.startsWith('#')) out.$ref = `#/components/schemas/${value}`;
      else out[key] = convert(value, false);
    }
    return out;
  };
  return convert(schema, false) as Json;
}
