import { useEffect } from 'preact/hooks';
import type { Job } from '@docsmith/client';
import { useSession } from '../session';
import { useAction, useLoad } from '../hooks';
import { Notice } from '../components/Notice';
import { formatBytes, saveBytes } from '../files';

const plural = (n: number, one: string) => `${n.toLocaleString()} ${one}${n === 1 ? '' : 's'}`;

/** "invoice.docx, 3 records to PDF", "2 documents to DOCX". */
function describe(summary: NonNullable<Job['summary']>): string {
  const what = [
    summary.template ?? (summary.records !== undefined ? 'an uploaded template' : undefined),
    summary.records !== undefined ? plural(summary.records, 'record') : undefined,
    summary.documents !== undefined ? plural(summary.documents, 'document') : undefined,
  ].filter(Boolean);
  return `${what.join(', ')} to ${summary.format}`;
}

const STATES: Record<Job['state'], string> = { queued: 'waiting', running: 'running', done: 'done', failed: 'failed' };

/** The file name a result gets, from what its bytes are. */
function extensionFor(bytes: Uint8Array): string {
  const head = new TextDecoder().decode(bytes.subarray(0, 8));
  if (head.startsWith('%PDF')) return 'pdf';
  if (head.startsWith('PK')) return 'docx';
  if (head.startsWith('{\\rtf')) return 'rtf';
  if (bytes[0] === 0xd0 && bytes[1] === 0xcf) return 'doc';
  return /<html|<!doctype/i.test(new TextDecoder().decode(bytes.subarray(0, 512))) ? 'html' : 'txt';
}

/** What each stage counts, in words; a stage without a count, what it does. */
const STAGES: Record<string, string> = {
  merging: 'records merged',
  converting: 'documents converted',
  layout: 'laying out the pages',
  pages: 'pages written',
  joining: 'parts joined',
};

function Progress({ job }: { job: Job }) {
  const p = job.progress;
  if (job.state !== 'running' || !p) return null;
  const label = p.total !== undefined ? `${STAGES[p.stage] ?? p.stage}: ${p.done ?? 0} of ${p.total}` : (STAGES[p.stage] ?? p.stage);
  return (
    <span class="job-progress">
      <span class="muted">{label}</span>
      {/* Without a count, a bar that moves on its own: the stage goes on. */}
      {p.total !== undefined ? (
        <progress max={p.total} value={p.done ?? 0} aria-label={`Progress of job ${job.id.slice(0, 8)}`} />
      ) : (
        <progress aria-label={`Job ${job.id.slice(0, 8)}: ${label}`} />
      )}
    </span>
  );
}

/** Background jobs (async=true): their state and progress, results to download, cancel or remove. */
export function Jobs() {
  const { client } = useSession();
  const jobs = useLoad(() => client.jobs(), []);
  const action = useAction();
  const active = (jobs.data ?? []).some((j) => j.state === 'queued' || j.state === 'running');
  // Follow running jobs: reload every second while any has not ended.
  useEffect(() => {
    if (!active) return undefined;
    const timer = setInterval(() => jobs.reload(), 1000);
    return () => clearInterval(timer);
  }, [active]);

  const download = (job: Job) =>
    action.run(async () => {
      const documents = await client.jobResult(job.id);
      documents.forEach((bytes, i) =>
        saveBytes(bytes, `${job.kind}-${job.id.slice(0, 8)}${documents.length > 1 ? `-${i + 1}` : ''}.${extensionFor(bytes)}`),
      );
      return `Downloaded ${documents.length === 1 ? 'the document' : `${documents.length} documents`}.`;
    });
  const remove = (job: Job) =>
    action.run(async () => {
      const running = job.state === 'queued' || job.state === 'running';
      if (
        !confirm(
          running
            ? `Cancel the ${job.kind} job ${job.id.slice(0, 8)}…?`
            : `Remove the ${job.kind} job ${job.id.slice(0, 8)}… and its result?`,
        )
      )
        return;
      await client.deleteJob(job.id);
      jobs.reload();
      return running ? 'Cancelled the job.' : 'Removed the job.';
    });

  return (
    <main>
      <h1>Jobs</h1>
      <p class="muted">
        Merges, conversions and appends sent with <code>async=true</code> (or “In the background” here) run as jobs: no time limit of a
        request, results kept for a while.
      </p>
      <Notice error={action.error ?? jobs.error} done={action.done} />
      {jobs.data && jobs.data.length === 0 && <p class="muted">No jobs yet.</p>}
      <ul class="keys" aria-label="Jobs">
        {(jobs.data ?? []).map((job) => (
          <li key={job.id} class="card key" data-state={job.state}>
            <span>
              <strong>{job.kind}</strong>{' '}
              <code class="muted" title={job.id}>
                {job.id.slice(0, 8)}
              </code>
              {job.summary && <span class="job-summary"> {describe(job.summary)}</span>}
            </span>
            <span class={`job-state ${job.state}`} role="status">
              {STATES[job.state]}
            </span>
            <Progress job={job} />
            <span class="muted small">
              {new Date(job.createdAt).toLocaleString()}
              {job.resultBytes !== null ? ` · ${formatBytes(job.resultBytes)}` : ''}
              {job.expiresAt ? ` · kept until ${new Date(job.expiresAt).toLocaleString()}` : ''}
              {job.callback ? ` · callback ${job.callback.state}` : ''}
            </span>
            {job.error && <span class="notice error small">{job.error.message}</span>}
            <span class="actions">
              {job.state === 'done' && (
                <button type="button" disabled={action.busy} onClick={() => void download(job)}>
                  Download
                </button>
              )}
              <button type="button" class="danger" disabled={action.busy} onClick={() => void remove(job)}>
                {job.state === 'queued' || job.state === 'running' ? 'Cancel' : 'Remove'}
              </button>
            </span>
          </li>
        ))}
      </ul>
    </main>
  );
}
