// bench:console: what the console costs, on `kcs start` with the README's defaults.
//   npm run bench:console
// 1. The first GET /console after start (the bundle is built then, console/ through esbuild), and
//    the size of its script and style sheet (raw and gzip).
// 2. GET /console again, 300 times one after another: median and p99; baseline in the same run,
//    GET /healthz the same way (a route that does nothing).
// 3. In Chromium: from navigation to the overview's counts on screen, signed in with a key in
//    the tab's session storage, 10 times (median); baseline, the server-rendered consent page
//    (no script) of the console's own OAuth client to its load event, 10 times.
import { Agent } from 'node:http';
import { gzipSync } from 'node:zlib';
import { launchBrowser, SKIP_WITHOUT_CHROMIUM } from '../test/console/browser.js';
import { fmt, runBench, timeSequential } from './support/harness.js';
import { request } from './support/http.js';
import { startKcs } from './support/kcs.js';

const LOADS = 300;
const PAGE_LOADS = 10;

runBench('bench:console', 300_000, async (undo) => {
  const kcs = await startKcs(undo);
  const agent = new Agent({ keepAlive: true });
  undo(() => agent.destroy());
  const get = (path: string) => request(kcs.port, { path, agent, headers: { host: kcs.host } });

  let started = performance.now();
  const first = await get('/console');
  const html = first.body;
  if (first.status !== 200) throw new Error(`/console answered ${first.status}`);
  const coldMs = performance.now() - started;
  const assets = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]);
  const sizes = await Promise.all(assets.map(async (path) => {
    const bytes = Buffer.from((await get(path)).body);
    return `${path.split('.').pop()} ${fmt(bytes.length / 1024, 1)} KiB (gzip ${fmt(gzipSync(bytes).length / 1024, 1)} KiB)`;
  }));
  console.log(`1. first GET /console (bundle built): ${fmt(coldMs, 0)} ms; ${sizes.join(', ')}`);

  const timed = (path: string) =>
    timeSequential(async () => {
      const res = await get(path);
      if (res.status !== 200) throw new Error(`${path} answered ${res.status}`);
    }, LOADS);
  const healthz = await timed('/healthz');
  const page = await timed('/console');
  console.log(`2. GET /console: median ${fmt(page.p50, 2)} ms, p99 ${fmt(page.p99, 2)} ms (baseline GET /healthz: ${fmt(healthz.p50, 2)} / ${fmt(healthz.p99, 2)} ms)`);

  if (SKIP_WITHOUT_CHROMIUM) {
    console.log(`3. skipped: ${SKIP_WITHOUT_CHROMIUM}`);
    return 0;
  }
  const browser = await launchBrowser();
  undo(() => browser.close());
  const url = `http://${kcs.host}/console`;
  const overview: number[] = [];
  for (let i = 0; i < PAGE_LOADS; i++) {
    const context = await browser.newContext();
    await context.addInitScript((key) => sessionStorage.setItem('kcs-console-session', JSON.stringify({ kind: 'api_key', token: key })), kcs.key);
    const tab = await context.newPage();
    started = performance.now();
    await tab.goto(url);
    await tab.waitForSelector('.tile:has-text("Products") .value:not(:has-text("…"))');
    overview.push(performance.now() - started);
    await context.close();
  }
  const clientId = /name="kcs-console-client" content="([^"]+)"/.exec(html)![1];
  const consentUrl = `http://${kcs.host}/oauth/authorize?response_type=code&client_id=${clientId}&redirect_uri=${encodeURIComponent(url)}` +
    '&code_challenge=E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM&code_challenge_method=S256';
  const consent: number[] = [];
  for (let i = 0; i < PAGE_LOADS; i++) {
    const context = await browser.newContext();
    const tab = await context.newPage();
    started = performance.now();
    await tab.goto(consentUrl, { waitUntil: 'load' });
    consent.push(performance.now() - started);
    await context.close();
  }
  const median = (ms: number[]) => [...ms].sort((a, b) => a - b)[ms.length >> 1];
  console.log(`3. Chromium, navigation to the overview's counts: median ${fmt(median(overview), 0)} ms ` +
    `(baseline, the consent page to its load event: ${fmt(median(consent), 0)} ms)`);
  return 0;
});
