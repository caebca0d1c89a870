// The OpenAPI document over real HTTP (DESIGN §3): version, a path for every route, operation ids,
// security, bodies, parameters, $refs.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;

before(async () => {
  stack = await startStack();
});
after(() => stack.close());

describe('OpenAPI document', () => {
  let doc: any;
  before(async () => {
    const res = await stack.request('GET', '/openapi.json');
    assert.equal(res.status, 200);
    doc = res.body;
  });

  test('is OpenAPI 3.1', () => {
    assert.match(doc.openapi, /^3\.1\./);
    assert.equal(typeof doc.info.title, 'string');
    assert.equal(typeof doc.info.version, 'string');
  });

  test('has a path for every registered route', () => {
    const expected: Record<string, string[]> = {
      '/api/knowledge/sites': ['get', 'post'],
      '/api/knowledge/sites/{site_id}': ['delete', 'get', 'put'],
      '/api/knowledge/categories': ['get', 'post'],
      '/api/knowledge/categories/{category_id}': ['delete', 'get', 'put'],
      '/api/knowledge/settings': ['get', 'put'],
      '/api/knowledge/users': ['get', 'post'],
      '/api/knowledge/api-keys': ['get', 'post'],
      '/api/knowledge/api-keys/{key_id}': ['delete'],
      '/healthz': ['get'],
      '/readyz': ['get'],
      '/metrics': ['get'],
      '/openapi.json': ['get'],
    };
    for (const [path, methods] of Object.entries(expected)) {
      assert.ok(doc.paths[path], `missing path ${path}`);
      for (const method of methods) assert.ok(doc.paths[path][method], `missing ${method.toUpperCase()} ${path}`);
    }
    // No Express-style ":param" leaks into the document.
    for (const path of Object.keys(doc.paths)) assert.doesNotMatch(path, /:/);
  });

  test('operation ids are unique; /api operations declare bearer security and their auth errors (403 where a scope is required)', () => {
    const ids: string[] = [];
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        ids.push(op.operationId);
        // A success, or a redirect for the endpoints whose answer is one (POST /oauth/authorize).
        assert.ok(Object.keys(op.responses).some((s) => /^[23]\d\d$/.test(s)), `${method} ${path} has no 2xx or 3xx`);
        // A CORS preflight carries no credential (the storefront routes answer OPTIONS).
        if (path.startsWith('/api/') && method !== 'options') {
          assert.ok(Array.isArray(op.security) && Array.isArray(op.security[0].bearer), `${method} ${path} has no security`);
          const scoped = op.security[0].bearer.length > 0;
          assert.ok(scoped || path === '/api/knowledge/whoami', `${method} ${path} requires no scope`);
          for (const status of ['401', ...(scoped ? ['403'] : [])]) assert.ok(op.responses[status], `${method} ${path} lacks ${status}`);
          if (!scoped) assert.equal(op.responses['403'], undefined, `${method} ${path} cannot answer 403`);
        }
      }
    }
    assert.equal(new Set(ids).size, ids.length);
    assert.ok(doc.components.securitySchemes.bearer);
  });

  test('the storefront routes: catalog:read or search as alternatives, a preflight, the storefront product', () => {
    for (const [path, method] of [['/api/knowledge/search/products', 'post'], ['/api/knowledge/products/{product_id}/related', 'get']]) {
      const op = doc.paths[path][method];
      assert.deepEqual(op.security, [{ bearer: ['catalog:read'] }, { bearer: ['search'] }]);
      assert.deepEqual(op['x-any-of-scopes'], ['catalog:read', 'search']);
      assert.ok(doc.paths[path].options, `${path} answers a preflight`);
    }
    const product = doc.components.schemas.StorefrontProduct;
    assert.ok(product.properties.title && !product.properties.sync_hash);
    assert.ok(doc.components.schemas.ApiKeyCreate.properties.allowed_origins);
    assert.ok(doc.components.schemas.ApiKey.required.includes('allowed_origins'));
  });

  test('POST /api/knowledge/sites documents its body and responses', () => {
    const op = doc.paths['/api/knowledge/sites'].post;
    const schema = op.requestBody.content['application/json'].schema;
    assert.match(schema.$ref, /^#\/components\/schemas\//);
    for (const status of ['201', '401', '403', '409', '422']) assert.ok(op.responses[status], `missing response ${status}`);
    assert.ok(op.responses['201'].content['application/json'].schema);
  });

  test('path parameters are documented as required', () => {
    const op = doc.paths['/api/knowledge/sites/{site_id}'].get;
    const param = op.parameters.find((p: { name: string }) => p.name === 'site_id');
    assert.equal(param.in, 'path');
    assert.equal(param.required, true);
  });

  test('every $ref resolves to an entry in components.schemas', () => {
    const refs: string[] = [];
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) return node.forEach(visit);
      if (node === null || typeof node !== 'object') return;
      for (const [key, value] of Object.entries(node)) {
        if (key === '$ref') refs.push(String(value));
        else visit(value);
      }
    };
    visit(doc);
    assert.ok(refs.length > 0);
    for (const ref of refs) {
      const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
      assert.ok(match, `$ref ${ref} does not point into components.schemas`);
      assert.ok(doc.components.schemas[match[1]], `$ref ${ref} does not resolve`);
    }
  });
});
