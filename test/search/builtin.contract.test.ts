// The SearchEngine contract against the built-in engine (in-memory replica) on a private redis-server.
import { BuiltinEngine } from '../../src/search/builtin/engine.js';
import { searchEngineContract } from './contract/index.js';
import { privateRedis } from './fixtures.js';
import { ServingModels } from '../../src/search/servingModels.js';

searchEngineContract({
  name: 'builtin',
  redis: privateRedis,
  create: (redis, log, configured) => new BuiltinEngine(redis, log, { models: new ServingModels(redis, { configured }) }),
  kind: 'builtin',
});
