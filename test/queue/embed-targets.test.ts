// What an embed job embeds, whichever build queued it: a single write's document with its text
// hash, a bulk import's product ids (their texts when the job runs), or the one document of a job
// queued by an earlier build (id with textHash or thash).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { embedTargets } from '../../src/queue/embed.js';

test('docs, ids and the earlier builds’ single document', () => {
  assert.deepEqual(embedTargets({ tenantId: 't', docs: [{ id: 'a', textHash: 'h' }] }), [{ id: 'a', textHash: 'h' }]);
  assert.deepEqual(embedTargets({ tenantId: 't', ids: ['a', 'b'], ingestJobId: 'j' }), [{ id: 'a' }, { id: 'b' }]);
  assert.deepEqual(embedTargets({ tenantId: 't', id: 'a', textHash: 'h' }), [{ id: 'a', textHash: 'h' }]);
  assert.deepEqual(embedTargets({ tenantId: 't', id: 'a', thash: 'old' }), [{ id: 'a', textHash: 'old' }]);
});
