import { useSession } from '../session';
import { useLoad } from '../hooks';
import { Notice } from '../components/Notice';

function Meter({ label, used, limit }: { label: string; used: number; limit: number }) {
  const share = limit > 0 ? Math.min(1, used / limit) : 0;
  return (
    <div class="meter-row">
      <div class="meter-label">
        <span>{label}</span>
        <span>
          {used.toLocaleString()} of {limit.toLocaleString()}
        </span>
      </div>
      <meter min={0} max={limit || 1} value={used} high={limit * 0.9} optimum={0} aria-label={label} />
      {share >= 1 && <p class="notice error">The limit is reached; ask the operator for more.</p>}
    </div>
  );
}

/** The first day of next month (UTC), as the reader writes dates. */
function nextMonth(): string {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toLocaleDateString(undefined, {
    timeZone: 'UTC',
    day: 'numeric',
    month: 'long',
    year: 'numeric',
  });
}

/** What the account has used against its licence's limits. */
export function Usage() {
  const { client } = useSession();
  const settings = useLoad(() => client.accountSettings(), []);
  const activity = useLoad(() => client.auditLog({ limit: 50 }), []);
  const s = settings.data;
  return (
    <main>
      <h1>Usage</h1>
      <Notice error={settings.error} />
      {s && (
        <section class="card stack">
          <p>
            Licence <strong>{s.serialNumber}</strong>
            {s.validUntil.startsWith('9999-') ? ' · no end date' : <> · valid until {new Date(s.validUntil).toLocaleDateString()}</>}
          </p>
          <Meter label="Documents created this month" used={s.createdDocuments} limit={s.maxDocuments} />
          <Meter label="Templates stored" used={s.uploadedTemplates} limit={s.maxTemplates} />
          <Meter label="Proofing requests this month" used={s.proofingTransactions} limit={s.maxProofingTransactions} />
          <p class="muted small">
            Documents and proofing requests count per calendar month (UTC); the counts start again on {nextMonth()}.
          </p>
        </section>
      )}
      <section aria-label="Recent activity">
        <h2>Recent activity</h2>
        {activity.error && <p class="muted">The activity of the account shows to its password or a key with scope full.</p>}
        {activity.data && activity.data.length === 0 && <p class="muted">Nothing yet.</p>}
        {activity.data && activity.data.length > 0 && (
          <div class="table-scroll">
            <table class="activity">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">What</th>
                  <th scope="col">Who</th>
                  <th scope="col">From</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                {activity.data.map((e) => (
                  <tr key={e.id}>
                    <td>{new Date(e.at).toLocaleString()}</td>
                    <td>{e.action}</td>
                    <td>{e.actor}</td>
                    <td>{e.address ?? ''}</td>
                    <td class="wrap">{e.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <p class="muted small">
          Sign-in failures, keys made and revoked, templates uploaded, replaced and deleted, and the operator's changes.
        </p>
      </section>
    </main>
  );
}
