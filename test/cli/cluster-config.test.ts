// REDIS_CLUSTER_NODES: seed nodes as host:port or URLs (the first URL's TLS and credentials apply
// to every node), refused with one line each when malformed, and handed on to child processes
// (workers, `kcs admin`) unchanged.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.js';
import { problemsOf } from '../helpers/configProblems.js';
import { describeTarget, redisEnv } from '../../src/store/redis.js';

test('seed nodes as host:port; WAIT for one replica by default on a cluster, none on one server', () => {
  const config = loadConfig({ REDIS_CLUSTER_NODES: '10.0.0.1:7000, 10.0.0.2:7001,[::1]:7002' });
  assert.deepEqual(config.redis, {
    kind: 'cluster', tls: false,
    nodes: [{ host: '10.0.0.1', port: 7000 }, { host: '10.0.0.2', port: 7001 }, { host: '::1', port: 7002 }],
  });
  assert.deepEqual(config.writeReplicas, { count: 1, timeoutMs: 1000 });
  assert.deepEqual(loadConfig({ REDIS_URL: 'redis://127.0.0.1:6379' }).writeReplicas, { count: 0, timeoutMs: 1000 });
  assert.deepEqual(loadConfig({ REDIS_CLUSTER_NODES: 'a:1', KCS_WAIT_REPLICAS: '0', KCS_WAIT_TIMEOUT_MS: '250' }).writeReplicas, { count: 0, timeoutMs: 250 });
});

test('TLS and credentials from the first URL apply to every node, and travel to child processes', () => {
  const config = loadConfig({ REDIS_CLUSTER_NODES: 'rediss://app:s%40cret@redis-1.internal:6380,redis-2.internal:6380' });
  assert.deepEqual(config.redis, {
    kind: 'cluster', tls: true, username: 'app', password: 's@cret',
    nodes: [{ host: 'redis-1.internal', port: 6380 }, { host: 'redis-2.internal', port: 6380 }],
  });
  const env = redisEnv(config.redis!);
  assert.deepEqual(loadConfig(env).redis, config.redis, 'a worker started with redisEnv() gets the same target');
  assert.equal(describeTarget(config.redis!), 'cluster redis-1.internal:6380,redis-2.internal:6380', 'logs name no secret');
});

test('malformed seeds, and both variables at once, are refused with one line each', () => {
  assert.deepEqual(problemsOf({ REDIS_CLUSTER_NODES: 'redis-1,http://x:1,:7000,h:99999,h:1/2' }), [
    'REDIS_CLUSTER_NODES has "redis-1": each seed node must be host:port or redis[s]://[user:password@]host:port',
    'REDIS_CLUSTER_NODES has "http://x:1": each seed node must be host:port or redis[s]://[user:password@]host:port',
    'REDIS_CLUSTER_NODES has ":7000": each seed node must be host:port or redis[s]://[user:password@]host:port',
    'REDIS_CLUSTER_NODES has "h:99999": each seed node must be host:port or redis[s]://[user:password@]host:port',
    'REDIS_CLUSTER_NODES has "h:1/2": each seed node must be host:port or redis[s]://[user:password@]host:port',
  ]);
  assert.deepEqual(problemsOf({ REDIS_CLUSTER_NODES: ' , ' }), ['REDIS_CLUSTER_NODES names no node; give host:port[,host:port...]']);
  assert.deepEqual(problemsOf({ REDIS_URL: 'redis://a:1', REDIS_CLUSTER_NODES: 'b:2' }), [
    'REDIS_URL and REDIS_CLUSTER_NODES are both set; set one (REDIS_CLUSTER_NODES for a Redis Cluster)',
  ]);
});
