// Knowledge entry embeddings with the default local embedder: embedding_status pending → ready.
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { startStack, type Stack, type TenantFixture } from '../../helpers/stack.js';
import { ENTRIES, CATEGORIES } from './fixtures.js';

// ---- embeddings (default local embedder) -------------------------------------------------------

describe('entry embeddings with the local embedder', () => {
  let local: Stack;
  let t: TenantFixture;
  before(async () => {
    local = await startStack(); // KCS_EMBEDDER defaults to local
    t = await local.tenant();
  });
  after(() => local.close());

  test('embedding_status goes pending → ready and embedding_model becomes use-lite-512-en', async () => {
    const cat = (await t.request('POST', CATEGORIES, { body: { name: 'emb' } })).body.id;
    const res = await t.request('POST', ENTRIES, {
      body: { title: 'Trail running', content: 'Shoes with a grippy sole for muddy trails.', category_id: cat, visibility: 'public', language: 'en', similarity_text: 'running shoes' },
    });
    assert.equal(res.status, 201, res.text);
    assert.equal(res.body.embedding_status, 'pending');
    assert.equal(res.body.embedding_model, null);
    // Each wait is bounded apart: under a parallel suite on two cores the worker's first embedding
    // (which loads the model) has taken most of half a minute.
    const WAIT_MS = 60_000;
    let deadline = Date.now() + WAIT_MS;
    let entry = res.body;
    while (entry.embedding_status === 'pending') {
      assert.ok(Date.now() < deadline, 'the entry was not embedded within 60 s');
      await delay(200);
      const got = await t.request('GET', `${ENTRIES}/${res.body.id}`);
      assert.equal(got.status, 200, got.text);
      entry = got.body;
    }
    assert.equal(entry.embedding_status, 'ready');
    assert.equal(entry.embedding_model, 'use-lite-512-en');
    assert.equal(entry.version, 1);
    // A change that leaves the texts alone keeps the status; a text change starts over.
    const tagged = await t.request('PUT', `${ENTRIES}/${entry.id}`, { body: { tags: ['shoes'] } });
    assert.equal(tagged.status, 200, tagged.text);
    assert.equal(tagged.body.embedding_status, 'ready');
    assert.equal(tagged.body.embedding_model, 'use-lite-512-en');
    const retitled = await t.request('PUT', `${ENTRIES}/${entry.id}`, { body: { title: 'Road running' } });
    assert.equal(retitled.status, 200, retitled.text);
    assert.equal(retitled.body.version, 3);
    entry = retitled.body;
    deadline = Date.now() + WAIT_MS;
    while (entry.embedding_status === 'pending') {
      assert.equal(entry.embedding_model, null);
      assert.ok(Date.now() < deadline, 'the retitled entry was not embedded within 60 s');
      await delay(200);
      entry = (await t.request('GET', `${ENTRIES}/${res.body.id}`)).body;
    }
    assert.equal(entry.embedding_status, 'ready');
    assert.equal(entry.embedding_model, 'use-lite-512-en');
  });
});
