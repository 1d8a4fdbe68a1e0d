import { useState } from 'preact/hooks';
import { useSession } from '../session';
import { useAction, useLoad } from '../hooks';
import { Notice } from '../components/Notice';
import { copyText } from '../files';

/** A key as shown when not asked for: its ends, enough to tell keys apart, not enough to use one. */
const masked = (key: string) => `${key.slice(0, 4)}…${key.slice(-4)}`;

/** API keys: create (shown in full once, with a copy button), copy, show, revoke. */
export function Keys() {
  const { client, credentials } = useSession();
  const keys = useLoad(() => client.apiKeys(), []);
  const action = useAction();
  const [fresh, setFresh] = useState<string | undefined>(undefined);
  const [shown, setShown] = useState<Set<string>>(new Set());
  const toggle = (key: string) =>
    setShown((before) => {
      const after = new Set(before);
      if (!after.delete(key)) after.add(key);
      return after;
    });
  const current = 'apiKey' in credentials ? credentials.apiKey : undefined;

  const create = () =>
    action.run(async () => {
      const key = await client.createApiKey();
      setFresh(key);
      keys.reload();
      return 'A new API key is ready. Use it in the Authorization header: ReportingCloud-APIKey <key>.';
    });
  const copy = (key: string) =>
    action.run(async () =>
      (await copyText(key)) ? 'Copied the key.' : 'Select the key and copy it by hand; this browser did not allow copying.',
    );
  const revoke = (key: string) =>
    action.run(async () => {
      const warning = key === current ? ' You signed in with this key: you will be signed out.' : '';
      if (!confirm(`Revoke the key ${key.slice(0, 8)}…? Programs using it stop working.${warning}`)) return;
      await client.deleteApiKey(key);
      if (key === current) location.reload();
      if (key === fresh) setFresh(undefined);
      keys.reload();
      return 'Revoked the key.';
    });

  return (
    <main>
      <h1>API keys</h1>
      <p class="muted">Programs and the client SDKs sign in with a key instead of your password.</p>
      <div class="actions">
        <button type="button" class="primary" disabled={action.busy} onClick={() => void create()}>
          Create a key
        </button>
      </div>
      <Notice error={action.error ?? keys.error} done={action.done} />
      {keys.data && keys.data.length === 0 && <p class="muted">No keys yet.</p>}
      <ul class="keys" aria-label="API keys">
        {(keys.data ?? []).map(({ key, active }) => (
          <li key={key} class={`card key${key === fresh ? ' fresh' : ''}`}>
            <code class="wrap" data-hidden={key === fresh || shown.has(key) ? undefined : 'true'}>
              {key === fresh || shown.has(key) ? key : masked(key)}
            </code>
            <span class="muted">
              {active ? 'active' : 'inactive'}
              {key === current ? ' · this session' : ''}
              {key === fresh ? ' · new' : ''}
            </span>
            <span class="actions">
              <button type="button" onClick={() => void copy(key)}>
                Copy
              </button>
              {key !== fresh && (
                <button type="button" aria-pressed={shown.has(key)} onClick={() => toggle(key)}>
                  {shown.has(key) ? 'Hide' : 'Show'}
                </button>
              )}
              <button type="button" class="danger" disabled={action.busy} onClick={() => void revoke(key)}>
                Revoke
              </button>
            </span>
          </li>
        ))}
      </ul>
    </main>
  );
}
