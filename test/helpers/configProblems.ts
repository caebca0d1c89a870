import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../src/config.js';

/** The lines loadConfig refuses an environment with (none: it is accepted). */
export const problemsOf = (env: Record<string, string>): string[] => {
  try {
    loadConfig(env);
    return [];
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems;
  }
};
