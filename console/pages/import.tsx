// Bulk import: upload an NDJSON or JSON-array file of products into a site, then follow the job
// (`#/import?job=<id>`, so a reload or the overview's link shows it again): a progress bar over
// the items stored, the counts, the items refused and the embedding that follows. Below, the
// latest jobs. The app shows this page only with catalog:write.
import { useEffect, useState } from 'preact/hooks';
import { api, describeDetail, get } from '../api.js';
import { JobsTable } from '../components/jobs.js';
import { ErrorBox, Field, formatDate, Loading, Notice, useAsync, useSubmit } from '../components/ui.js';
import { href, navigate, useLocation } from '../router.js';
import type { BulkAccepted, IngestJob, JobSummary } from '../types.js';
import { pickSite, SiteSelect, useSites } from './catalogue/shared.js';

/** The API's bulk limit: a bigger file would only earn a 413 after its upload. */
const MAX_BYTES = 32 * 1024 * 1024;
/** Poll cadence while items are stored, then while their embedding runs. */
const STORING_POLL_MS = 500;
const EMBEDDING_POLL_MS = 1500;

const isStoring = (job: JobSummary) => job.status === 'queued' || job.status === 'running';
const processed = (job: JobSummary) => job.counts.created + job.counts.updated + job.counts.unchanged + job.counts.failed + job.counts.rejected;
const percent = (done: number, total: number) => (total > 0 ? Math.min(100, Math.floor((100 * done) / total)) : 0);
/** `.json` is a JSON array; `.ndjson` and `.jsonl` hold one product per line. */
const contentTypeOf = (file: File) => (file.name.toLowerCase().endsWith('.json') ? 'application/json' : 'application/x-ndjson');

export function ImportPage() {
  const { params } = useLocation();
  const jobId = params.get('job');
  const [accepted, setAccepted] = useState<BulkAccepted | null>(null);
  // Bumped when a job's items are stored, so the list of jobs shows its final counts.
  const [round, setRound] = useState(0);
  return (
    <div class="import">
      <h1>Bulk import</h1>
      <UploadForm onAccepted={(answer) => { setAccepted(answer); setRound((r) => r + 1); navigate('import', { job: answer.job_id }); }} />
      {jobId ? <JobView key={jobId} id={jobId} accepted={accepted?.job_id === jobId ? accepted : null} onStored={() => setRound((r) => r + 1)} /> : null}
      <LatestJobs current={jobId} round={round} />
    </div>
  );
}

function UploadForm({ onAccepted }: { onAccepted: (answer: BulkAccepted) => void }) {
  const sites = useSites();
  const [siteId, setSiteId] = useState<string | undefined>(undefined);
  const [file, setFile] = useState<File | null>(null);
  const { busy, error, setError, run } = useSubmit();
  const site = sites.data ? pickSite(sites.data, siteId) : undefined;

  const upload = (e: Event) => {
    e.preventDefault();
    if (!site || !file) return;
    if (file.size > MAX_BYTES) return setError(new Error(`${file.name} is over the 32 MiB a bulk import takes: split it.`));
    void run(async () => {
      const answer = await api<BulkAccepted>('POST', '/api/knowledge/products/bulk', {
        query: { site_id: site.id },
        raw: { data: file, contentType: contentTypeOf(file) },
      });
      onAccepted(answer.body);
    });
  };

  if (sites.data?.length === 0) return <p class="muted">No site yet: <a href={href('catalogue/sites')}>create one</a> to import products into.</p>;
  return (
    <form class="card upload" onSubmit={upload} aria-label="Upload products">
      <div class="row">
        <SiteSelect sites={sites.data ?? []} value={site?.id} onChange={setSiteId} />
        <Field label="File">
          <input type="file" name="file" accept=".ndjson,.jsonl,.json" onChange={(e) => setFile(e.currentTarget.files?.[0] ?? null)} />
        </Field>
        <button type="submit" class="primary" disabled={!site || !file || busy}>{busy ? 'Uploading…' : 'Upload'}</button>
      </div>
      <p class="muted small">NDJSON (.ndjson, .jsonl: one product per line) or a JSON array (.json) of products; up to 10,000 items and 32 MiB.</p>
      <ErrorBox error={sites.error ?? error} />
      <Loading when={sites.loading} />
    </form>
  );
}

/** Follows one job: every STORING_POLL_MS while its items are stored, then slower while embedding is pending. */
function useJob(id: string, onStored: () => void) {
  const [job, setJob] = useState<IngestJob | null>(null);
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let live = true;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let reported = false;
    const poll = async () => {
      try {
        const current = await get<IngestJob>(`/api/knowledge/jobs/${id}`);
        if (!live) return;
        setJob(current);
        setError(null);
        if (!isStoring(current) && !reported) {
          reported = true;
          onStored();
        }
        if (isStoring(current) || current.embedding.pending > 0) timer = setTimeout(poll, isStoring(current) ? STORING_POLL_MS : EMBEDDING_POLL_MS);
      } catch (failure) {
        if (live) setError(failure); // a 404 (gone after 7 days, another tenant's) ends the polling
      }
    };
    void poll();
    return () => {
      live = false;
      clearTimeout(timer);
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id]);
  return { job, error };
}

function ProgressBar({ pct, label }: { pct: number; label: string }) {
  return (
    <div class="progress" role="progressbar" aria-label={label} aria-valuemin={0} aria-valuemax={100} aria-valuenow={pct}>
      <div style={{ width: `${pct}%` }} />
    </div>
  );
}

function JobView({ id, accepted, onStored }: { id: string; accepted: BulkAccepted | null; onStored: () => void }) {
  const { job, error } = useJob(id, onStored);
  return (
    <section class="card job" aria-label="Import job">
      <h2>Import <code class="small">{id}</code></h2>
      {accepted ? <Notice>Upload accepted: {accepted.accepted} item{accepted.accepted === 1 ? '' : 's'} queued, {accepted.rejected} rejected.</Notice> : null}
      <ErrorBox error={error} />
      {job ? <JobDetail job={job} /> : <Loading when={!error} />}
    </section>
  );
}

function JobDetail({ job }: { job: IngestJob }) {
  const pct = percent(processed(job), job.total);
  const embedded = job.embedding.pending + job.embedding.done + job.embedding.failed;
  return (
    <>
      <p class="job-status">
        <span class={`status ${job.status}`}>{job.status}</span>{' '}
        <span class="muted small">{processed(job)} of {job.total} items · started {formatDate(job.created_at)}{job.finished_at ? ` · finished ${formatDate(job.finished_at)}` : ''}</span>
      </p>
      <ProgressBar pct={pct} label="Items stored" />
      <p class="progress-label">{pct}%</p>
      <table class="counts">
        <thead><tr><th>total</th><th>created</th><th>updated</th><th>unchanged</th><th>failed</th><th>rejected</th></tr></thead>
        <tbody>
          <tr>
            <td>{job.total}</td><td>{job.counts.created}</td><td>{job.counts.updated}</td><td>{job.counts.unchanged}</td>
            <td>{job.counts.failed}</td><td>{job.counts.rejected}</td>
          </tr>
        </tbody>
      </table>
      {embedded > 0 ? (
        <div class="embedding-progress">
          <h3>Embedding</h3>
          <ProgressBar pct={percent(job.embedding.done + job.embedding.failed, embedded)} label="Products embedded" />
          <p class="small">
            {job.embedding.done} done · {job.embedding.pending} pending · {job.embedding.failed} failed
            {job.embedding.rate_per_s ? ` · ${job.embedding.rate_per_s.toFixed(1)} documents/s` : ''}
            {job.embedding.eta_s ? ` · about ${job.embedding.eta_s} s left` : ''}
          </p>
        </div>
      ) : null}
      {job.errors.length > 0 ? (
        <div class="item-errors">
          <h3>Items refused ({job.errors.length})</h3>
          <table>
            <thead><tr><th>item</th><th>detail</th></tr></thead>
            <tbody>
              {job.errors.map((e) => (
                <tr key={e.index} data-index={e.index}>
                  <td>{e.index}</td>
                  <td>{describeDetail(422, e.detail)}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p class="muted small">Item numbers count from 0 over the file's products (blank lines are not items).</p>
        </div>
      ) : null}
    </>
  );
}

function LatestJobs({ current, round }: { current: string | null; round: number }) {
  const jobs = useAsync(() => get<JobSummary[]>('/api/knowledge/jobs', { limit: 10 }), [round]);
  return (
    <section class="card latest-jobs">
      <h2>Latest imports</h2>
      <ErrorBox error={jobs.error} />
      {jobs.data?.length === 0 ? <p class="muted">No import in the last 7 days.</p> : null}
      {jobs.data?.length ? (
        <JobsTable jobs={jobs.data} current={current} onOpen={(job) => navigate('import', { job })} />
      ) : null}
      <Loading when={jobs.loading} />
    </section>
  );
}
