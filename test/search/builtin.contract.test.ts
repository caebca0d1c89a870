// The SearchEngine contract against the built-in engine (in-memory replica) on a private redis-server.
import { BuiltinEngine } from '../../src/search/builtin/engine.js';
import { searchEngineContract } from './contract.js';
import { privateRedis } from './fixtures.js';

searchEngineContract({
  name: 'builtin',
  redis: privateRedis,
  create: (redis, log, { modelId }) => new BuiltinEngine(redis, log, { modelId }),
  kind: 'builtin',
});
