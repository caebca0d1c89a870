// Replica reads on one server with two replicas (store/replicaSet.ts, KCS_SEARCH_READS=replicas), on
// private redis-servers: which replicas may answer a read, read-your-writes through them with the
// writes confirmed as the API confirms them (store/replicaAck.ts), and what a stopped, killed or
// promoted replica does to that.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { connectRedis, type Store } from '../../src/store/redis.js';
import { ReplicaAck } from '../../src/store/replicaAck.js';
import { parseReplication, ReplicaSet } from '../../src/store/replicaSet.js';
import { startReplicatedRedis, type ReplicatedRedis } from '../helpers/redisReplicas.js';

/** Short, so that a stopped replica shows quickly; the polls are timed by it (a sixth). */
const WAIT_MS = 300;

const portOf = (reader: { options: { port?: number } } | null) => reader?.options.port ?? null;

/** The ports `reader` hands out over `n` passes of the event loop (null: the master); within a pass it hands out one. */
async function served(set: ReplicaSet, n = 20): Promise<Set<number | null>> {
  const ports = new Set<number | null>();
  for (let i = 0; i < n; i++) {
    const port = portOf(set.reader('server'));
    assert.equal(portOf(set.reader('server')), port, 'one replica a pass');
    ports.add(port);
    await new Promise((r) => setImmediate(r));
  }
  return ports;
}

test('INFO replication: a master\'s online replicas and offset; a replica\'s applied offset, none while its link is down', () => {
  const master = parseReplication('# Replication\r\nrole:master\r\nconnected_slaves:2\r\nslave0:ip=127.0.0.1,port=7001,state=online,offset=120,lag=0\r\nslave1:ip=127.0.0.1,port=7002,state=wait_bgsave,offset=0,lag=0\r\nmaster_repl_offset:130\r\n');
  assert.deepEqual(master, { role: 'master', offset: 130, replicas: [{ host: '127.0.0.1', port: 7001, online: true }, { host: '127.0.0.1', port: 7002, online: false }] });
  assert.equal(parseReplication('role:slave\r\nmaster_link_status:up\r\nslave_repl_offset:99\r\nmaster_repl_offset:99\r\n').offset, 99);
  assert.equal(parseReplication('role:slave\r\nmaster_link_status:down\r\nslave_repl_offset:99\r\n').offset, -1);
});

describe('replica reads on one server with two replicas', () => {
  let servers: ReplicatedRedis;
  let redis: Store;
  let set: ReplicaSet;
  let ack: ReplicaAck;

  before(async () => {
    servers = await startReplicatedRedis({ replicas: 2 });
    redis = connectRedis(servers.url);
    await redis.connect();
    set = await ReplicaSet.open(redis, { waitTimeoutMs: WAIT_MS });
    ack = await ReplicaAck.open(redis, { replicas: 0, timeoutMs: WAIT_MS, readers: set });
  });
  after(async () => {
    ack?.close();
    set?.close();
    redis?.disconnect();
    await servers?.stop();
  });

  test('both replicas serve once seen for a wait timeout, in turn; writes wait for both', async () => {
    assert.equal(set.replicasOf('server'), 2);
    await delay(WAIT_MS + 50);
    await set.settled();
    assert.deepEqual([...(await served(set))].sort(), servers.replicas.map((r) => r.port).sort());
  });

  test('read-your-writes: 1,000 writes confirmed, each read at once on a replica: all found', async () => {
    let onReplicas = 0;
    for (let i = 0; i < 1000; i++) {
      await redis.set('ryw', String(i));
      await ack.confirm('ryw');
      const reader = set.reader('server');
      if (!reader) continue;
      onReplicas++;
      assert.equal(await reader.get('ryw'), String(i), `write ${i} read on replica ${portOf(reader)}`);
    }
    assert.ok(onReplicas > 900, `${onReplicas} of 1,000 reads on a replica`);
  });

  test('a stopped replica: the write is answered after the wait, and neither this process nor another reads that replica then', async () => {
    const other = await ReplicaSet.open(redis, { waitTimeoutMs: WAIT_MS });
    const stopped = servers.replicas[0];
    try {
      await delay(WAIT_MS + 50);
      await other.settled();
      assert.ok((await served(other)).has(stopped.port), 'the other process reads the replica before');
      stopped.process.kill('SIGSTOP');
      await redis.set('stopped', 'written');
      const started = performance.now();
      await ack.confirm('stopped');
      assert.ok(performance.now() - started >= WAIT_MS * 0.9, 'the write waited for the stopped replica');
      for (const s of [set, other]) {
        const ports = await served(s);
        assert.ok(!ports.has(stopped.port), `a process read the stopped replica: ${[...ports]}`);
        const reader = s.reader('server');
        if (reader) assert.equal(await reader.get('stopped'), 'written');
      }
    } finally {
      stopped.process.kill('SIGCONT');
      other.close();
    }
    // Caught up, it serves again.
    for (let i = 0; i < 50 && !(await served(set)).has(stopped.port); i++) await delay(50);
    assert.ok((await served(set)).has(stopped.port), 'the replica serves again once it has caught up');
  });

  test('a replica promoted leaves its master\'s reads; one killed too; with none left, reads go to the master', async () => {
    const [promoted, killed] = servers.replicas;
    await servers.ask(promoted, (c) => c.replicaof('NO', 'ONE'));
    await set.settled();
    assert.equal(set.replicasOf('server'), 1);
    assert.ok(!(await served(set)).has(promoted.port));
    killed.process.kill('SIGKILL');
    await set.settled();
    assert.deepEqual([...(await served(set))], [null]);
    // The master drops it once it sees the connection closed.
    for (let i = 0; i < 100 && set.replicasOf('server') > 0; i++) await set.settled();
    assert.equal(set.replicasOf('server'), 0);
    // Writes no longer wait for anyone.
    const started = performance.now();
    await redis.set('alone', '1');
    await ack.confirm('alone');
    assert.ok(performance.now() - started < WAIT_MS, 'no wait without replicas');
  });
});
