// The OAuth token scripts on their own, against a private redis-server: oauthExchangeCode-7 and
// oauthRotateRefresh-6, each return code (store/scripts.ts), and that a refusal leaves nothing behind.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { keys } from '../../src/store/keys.js';
import { GrantResult } from '../../src/store/scripts.js';
import { keyspace, privateRedis } from './privateRedis.js';

const T = 'tenant-1';
const NOW = Date.now();
const ACCESS_TTL = 60_000;
const GRANT_TTL = 3_600_000;
const USED_CODE_TTL = 120_000;
const REFRESH_TTL = 7_200_000;

const redis = privateRedis(async (r) => {
  await r.set(keys.oauthClient(T, 'c1'), JSON.stringify({ client_id: 'c1' }));
  await r.set(keys.apiKey(T, 'k1'), JSON.stringify({ id: 'k1' }));
});

const ttlWithin = async (key: string, ttlMs: number) => {
  const left = await redis.pttl(key);
  assert.ok(left > 0 && left <= ttlMs, `${key} expires in ${left} ms, at most ${ttlMs}`);
};
const grantOf = (clientId: string, grantId: string) =>
  Promise.all([redis.get(keys.oauthGrant(T, grantId)), redis.zscore(keys.oauthClientGrants(T, clientId), grantId)]);

describe('oauthExchangeCode', () => {
  const saveCode = (code: string) => redis.hset(keys.oauthCode(T, code), 'doc', JSON.stringify({ code }), 'state', 'fresh');
  /** The code's grant is `g-<code>`, its tokens `at-<code>` and `rt-<code>`. */
  const exchange = (code: string, clientId = 'c1', apiKeyId = 'k1') =>
    redis.oauthExchangeCode(
      keys.oauthCode(T, code), keys.oauthClient(T, clientId), keys.oauthGrant(T, `g-${code}`), keys.oauthAccessToken(T, `at-${code}`),
      keys.oauthRefreshToken(T, `rt-${code}`), keys.oauthClientGrants(T, clientId), keys.apiKey(T, apiKeyId),
      `g-${code}`, JSON.stringify({ id: `g-${code}` }), JSON.stringify({ grant_id: `g-${code}` }), JSON.stringify({ grant_id: `g-${code}`, kind: 'rt' }),
      ACCESS_TTL, GRANT_TTL, USED_CODE_TTL, NOW,
    );

  test('Unknown for a missing code, ClientGone for a deleted client, Unknown for a revoked approving API key; nothing written', async () => {
    await saveCode('code-0');
    const before = await keyspace(redis);
    assert.equal(await exchange('missing'), GrantResult.Unknown);
    assert.equal(await exchange('code-0', 'gone'), GrantResult.ClientGone);
    assert.equal(await exchange('code-0', 'c1', 'revoked'), GrantResult.Unknown);
    assert.deepEqual(await keyspace(redis), before, 'the code stays fresh, no grant, no token');
  });

  test('Issued: the code is used (and remembered a while), the grant and its tokens are written with their TTLs', async () => {
    await saveCode('code-1');
    assert.equal(await exchange('code-1'), GrantResult.Issued);
    assert.equal(await redis.hget(keys.oauthCode(T, 'code-1'), 'state'), 'used');
    await ttlWithin(keys.oauthCode(T, 'code-1'), USED_CODE_TTL);
    assert.deepEqual(await grantOf('c1', 'g-code-1'), [JSON.stringify({ id: 'g-code-1' }), String(NOW + GRANT_TTL)]);
    await ttlWithin(keys.oauthGrant(T, 'g-code-1'), GRANT_TTL);
    assert.equal(await redis.get(keys.oauthAccessToken(T, 'at-code-1')), JSON.stringify({ grant_id: 'g-code-1' }));
    await ttlWithin(keys.oauthAccessToken(T, 'at-code-1'), ACCESS_TTL);
    assert.deepEqual(await redis.hgetall(keys.oauthRefreshToken(T, 'rt-code-1')), { doc: JSON.stringify({ grant_id: 'g-code-1', kind: 'rt' }), state: 'active' });
    await ttlWithin(keys.oauthRefreshToken(T, 'rt-code-1'), GRANT_TTL);
  });

  test('Reused on a second exchange: the grant issued from the code is revoked', async () => {
    assert.equal(await exchange('code-1'), GrantResult.Reused);
    assert.deepEqual(await grantOf('c1', 'g-code-1'), [null, null]);
    assert.equal(await exchange('code-1'), GrantResult.Reused, 'and again, while the used code is remembered');
  });
});

describe('oauthRotateRefresh', () => {
  /** Rotates refresh token `from` to `to` (with access token `at-<to>`) in grant `grantId`. */
  const rotate = (from: string, to: string, grantId = 'g1', clientId = 'c1') =>
    redis.oauthRotateRefresh(
      keys.oauthRefreshToken(T, from), keys.oauthGrant(T, grantId), keys.oauthRefreshToken(T, to), keys.oauthAccessToken(T, `at-${to}`),
      keys.oauthClient(T, clientId), keys.oauthClientGrants(T, clientId), grantId,
      JSON.stringify({ grant_id: grantId, token: to }), JSON.stringify({ grant_id: grantId }), ACCESS_TTL, REFRESH_TTL, NOW,
    );
  const saveRefresh = (token: string, grantId: string) =>
    redis.hset(keys.oauthRefreshToken(T, token), 'doc', JSON.stringify({ grant_id: grantId, token }), 'state', 'active');

  before(async () => {
    await redis.set(keys.oauthGrant(T, 'g1'), JSON.stringify({ id: 'g1' }), 'PX', GRANT_TTL);
    await redis.zadd(keys.oauthClientGrants(T, 'c1'), NOW + GRANT_TTL, 'g1');
    await saveRefresh('rt-1', 'g1');
    await redis.set(keys.oauthGrant(T, 'g-orphan'), JSON.stringify({ id: 'g-orphan' }));
    await saveRefresh('rt-orphan', 'g-orphan');
  });

  test('Unknown for a missing token, ClientGone for a deleted client; nothing written', async () => {
    const before = await keyspace(redis);
    assert.equal(await rotate('missing', 'rt-x'), GrantResult.Unknown);
    assert.equal(await rotate('rt-orphan', 'rt-x', 'g-orphan', 'gone'), GrantResult.ClientGone);
    assert.deepEqual(await keyspace(redis), before);
  });

  test('Issued: the presented token is retired, a new active one and an access token written, the grant extended', async () => {
    assert.equal(await rotate('rt-1', 'rt-2'), GrantResult.Issued);
    assert.equal(await redis.hget(keys.oauthRefreshToken(T, 'rt-1'), 'state'), 'rotated');
    assert.deepEqual(await redis.hgetall(keys.oauthRefreshToken(T, 'rt-2')), { doc: JSON.stringify({ grant_id: 'g1', token: 'rt-2' }), state: 'active' });
    await ttlWithin(keys.oauthRefreshToken(T, 'rt-2'), REFRESH_TTL);
    assert.equal(await redis.get(keys.oauthAccessToken(T, 'at-rt-2')), JSON.stringify({ grant_id: 'g1' }));
    await ttlWithin(keys.oauthAccessToken(T, 'at-rt-2'), ACCESS_TTL);
    assert.ok((await redis.pttl(keys.oauthGrant(T, 'g1'))) > GRANT_TTL, 'the grant lives as long as the new refresh token');
    assert.equal(await redis.zscore(keys.oauthClientGrants(T, 'c1'), 'g1'), String(NOW + REFRESH_TTL));
  });

  test('Reused for a rotated token: the whole family is revoked, so its newest token is Unknown', async () => {
    assert.equal(await rotate('rt-1', 'rt-3'), GrantResult.Reused);
    assert.deepEqual(await grantOf('c1', 'g1'), [null, null]);
    assert.equal(await redis.exists(keys.oauthRefreshToken(T, 'rt-3')), 0, 'no token issued');
    const before = await keyspace(redis);
    assert.equal(await rotate('rt-2', 'rt-4'), GrantResult.Unknown);
    assert.deepEqual(await keyspace(redis), before);
  });
});
