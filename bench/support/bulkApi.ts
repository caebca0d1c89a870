// An HTTP client of a kcs server for the import benchmarks, and the timed bulk runs: every body
// POSTed (IN_FLIGHT at once) and every job awaited, or one body awaited until embedded.
import { Agent } from 'node:http';
import { product } from './catalogue.js';
import { request } from './http.js';
import { cpuMeter } from './proc.js';

/** Bulk uploads at once. */
export const IN_FLIGHT = 3;

export const bulkPath = (siteId: string) => `/api/knowledge/products/bulk?site_id=${siteId}`;

export interface JobView {
  id: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  total: number;
  counts: { created: number; updated: number; unchanged: number; failed: number; rejected: number };
  embedding: { pending: number; done: number; failed: number };
  created_at: string;
  finished_at: string | null;
}

/** What makes a bulk run's figures invalid: a job not completed, a count other than expected (0 where not given). */
export function bulkProblems(name: string, views: JobView[], expected: Partial<JobView['counts']>): string[] {
  const problems = views.filter((v) => v.status !== 'completed').map((v) => `${name}: job ${v.id} is ${v.status}`);
  for (const field of ['created', 'updated', 'unchanged', 'failed', 'rejected'] as const) {
    const counted = views.reduce((sum, v) => sum + v.counts[field], 0);
    if (counted !== (expected[field] ?? 0)) problems.push(`${name}: counts.${field} is ${counted}, ${expected[field] ?? 0} expected`);
  }
  return problems;
}

export interface BulkResult {
  views: JobView[];
  /** First byte sent → last job completed. */
  seconds: number;
  rate: number;
  /** First byte sent → last 202 received. */
  uploadSeconds: number;
  /** First 202 received → last job completed (the workers write while later requests upload). */
  writeSeconds: number;
  cpuSeconds: Record<string, number>;
}

/** POSTs every body (IN_FLIGHT at once), waits for every job; times from the first byte sent to the last job completed. */
export async function bulkRun(api: Api, path: string, bodies: Buffer[], watched: Record<string, number | undefined>): Promise<BulkResult> {
  api.fresh();
  const meter = cpuMeter(watched);
  const t0 = performance.now();
  const t0Epoch = performance.timeOrigin + t0;
  const acceptedAt: number[] = [];
  const waits: Promise<JobView>[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < bodies.length) {
        const body = bodies[next++];
        const reply = await api.call('POST', path, body, 'application/x-ndjson');
        if (reply.status !== 202) throw new Error(`bulk POST answered ${reply.status}: ${reply.body.slice(0, 500)}`);
        acceptedAt.push(performance.now() - t0);
        const accepted = JSON.parse(reply.body) as { job_id: string; accepted: number; rejected: number };
        if (accepted.rejected > 0) throw new Error(`bulk POST rejected ${accepted.rejected} items: ${reply.body.slice(0, 500)}`);
        const wait = api.waitForJob(accepted.job_id);
        wait.catch(() => undefined); // awaited below, after the uploads; a failure is not unhandled meanwhile
        waits.push(wait);
      }
    }),
  );
  const views = await Promise.all(waits);
  const { seconds: cpuSeconds } = meter();
  const finished = views.map((v) => (v.finished_at ? Date.parse(v.finished_at) - t0Epoch : NaN));
  const seconds = Math.max(...finished) / 1000;
  const total = views.reduce((sum, v) => sum + v.total, 0);
  return {
    views,
    seconds,
    rate: total / seconds,
    uploadSeconds: Math.max(...acceptedAt) / 1000,
    writeSeconds: seconds - Math.min(...acceptedAt) / 1000,
    cpuSeconds,
  };
}

export class Api {
  private uploads = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
  private others = new Agent({ keepAlive: true });

  constructor(
    readonly port: number,
    readonly host: string,
    readonly key: string,
  ) {}

  /** A request with the API key; a body is JSON unless `contentType` says otherwise. */
  call(method: 'GET' | 'POST', path: string, body?: Buffer | string, contentType = 'application/json') {
    const headers: Record<string, string> = { host: this.host, authorization: `Bearer ${this.key}`, ...(body === undefined ? {} : { 'content-type': contentType }) };
    return request(this.port, { method, path, headers, body, agent: body === undefined ? this.others : this.uploads });
  }

  /** Creates the benchmarks' site (slug `bench`, English): its id. */
  async createSite(): Promise<string> {
    const reply = await this.call('POST', '/api/knowledge/sites', JSON.stringify({ slug: 'bench', name: 'Bench', language: 'en' }));
    if (reply.status !== 201) throw new Error(`site: ${reply.status} ${reply.body}`);
    return (JSON.parse(reply.body) as { id: string }).id;
  }

  /** The job once it is completed or failed (GET …?wait=true answers after at most 60 s: asks again). */
  async waitForJob(jobId: string): Promise<JobView> {
    for (;;) {
      const reply = await this.call('GET', `/api/knowledge/jobs/${jobId}?wait=true`);
      if (reply.status !== 200) throw new Error(`GET job ${jobId} answered ${reply.status}: ${reply.body.slice(0, 500)}`);
      const view = JSON.parse(reply.body) as JobView;
      if (view.status === 'completed' || view.status === 'failed') return view;
    }
  }

  /**
   * New connections for the next run: uWS closes a keep-alive connection after 10 s idle, and a
   * request sent on one it is closing fails.
   */
  fresh(): void {
    this.close();
    this.uploads = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    this.others = new Agent({ keepAlive: true });
  }

  close(): void {
    this.uploads.destroy();
    this.others.destroy();
  }
}

/**
 * One bulk request of `count` new products (catalogue numbers from `first`), timed from the first
 * byte until every product is embedded (the job's embedding.pending is 0); storedSeconds: until
 * the job completed.
 */
export async function embedRun(api: Api, path: string, prefix: string, first: number, count: number, watched: Record<string, number | undefined> = {}) {
  const lines = Array.from({ length: count }, (_, k) => JSON.stringify(product(prefix, first + k)));
  api.fresh();
  const meter = cpuMeter(watched);
  const t0 = performance.now();
  const reply = await api.call('POST', path, Buffer.from(lines.join('\n')), 'application/x-ndjson');
  if (reply.status !== 202) throw new Error(`bulk POST answered ${reply.status}: ${reply.body.slice(0, 500)}`);
  const { job_id: jobId } = JSON.parse(reply.body) as { job_id: string };
  const deadline = Date.now() + 60_000 + count * 150;
  let storedSeconds = NaN;
  for (;;) {
    const view = JSON.parse((await api.call('GET', `/api/knowledge/jobs/${jobId}`)).body) as JobView;
    if (view.status === 'failed') throw new Error(`job ${jobId} failed: ${JSON.stringify(view)}`);
    if (view.status === 'completed' && Number.isNaN(storedSeconds)) storedSeconds = (performance.now() - t0) / 1000;
    if (view.status === 'completed' && view.embedding.pending === 0) {
      const seconds = (performance.now() - t0) / 1000;
      return { view, seconds, storedSeconds, cpu: meter().cores };
    }
    if (Date.now() > deadline) throw new Error(`job ${jobId}: embeddings not done in time: ${JSON.stringify(view)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
