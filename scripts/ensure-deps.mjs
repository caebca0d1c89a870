// Runs before `npm start` and `npm test`: installs the locked dependencies when node_modules is
// missing or older than package-lock.json, so a fresh clone needs no separate install step.
// Plain JavaScript on purpose: it must run before any dependency (tsx included) exists.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';

const marker = 'node_modules/.package-lock.json';
const stale = !existsSync(marker) || statSync(marker).mtimeMs < statSync('package-lock.json').mtimeMs;
if (stale) {
  process.stderr.write('kcs: installing dependencies (npm install)…\n');
  const result = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { stdio: 'inherit' });
  process.exit(result.status ?? 1);
}
