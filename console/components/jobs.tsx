// The table of import jobs, as the overview and the import page list them: each job's date (a
// link to it on the import page), status and counts.
import { href } from '../router.js';
import type { JobSummary } from '../types.js';
import { formatDate } from './ui.js';

/** `onOpen`: a click anywhere on a row opens its job (the rows are then clickable); `current`: the job shown now. */
export function JobsTable({ jobs, current, onOpen }: { jobs: JobSummary[]; current?: string | null; onOpen?: (id: string) => void }) {
  return (
    <table class={onOpen ? 'clickable' : undefined}>
      <thead><tr><th>created</th><th>status</th><th>total</th><th>created</th><th>updated</th><th>unchanged</th><th>failed</th><th>rejected</th></tr></thead>
      <tbody>
        {jobs.map((j) => (
          <tr key={j.id} class={j.id === current ? 'selected' : undefined} onClick={onOpen ? () => onOpen(j.id) : undefined}>
            <td><a href={href('import', { job: j.id })}>{formatDate(j.created_at)}</a></td>
            <td><span class={`status ${j.status}`}>{j.status}</span></td>
            <td>{j.total}</td><td>{j.counts.created}</td><td>{j.counts.updated}</td><td>{j.counts.unchanged}</td>
            <td>{j.counts.failed}</td><td>{j.counts.rejected}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
