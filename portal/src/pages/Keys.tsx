import { useState } from 'preact/hooks';
import type { ApiKeyDetails } from '@docsmith/client';
import { useSession } from '../session';
import { useAction, useLoad } from '../hooks';
import { Notice } from '../components/Notice';
import { copyText } from '../files';

/** A key's ends, as the server shows keys after their creation. */
const masked = (key: string) => `${key.slice(0, 4)}…${key.slice(-4)}`;

type Scope = ApiKeyDetails['scope'];

/** What each scope allows, as the creation form offers it (the server's auth/scopes.ts). */
const SCOPES: Record<Scope, string> = {
  full: 'Everything',
  merge: 'Merge and convert only',
  read: 'Read templates only',
};

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

/** API keys: create with a name (shown in full once, with a copy button), rename, revoke; listed masked with their dates. */
export function Keys() {
  const { client, credentials } = useSession();
  const keys = useLoad(() => client.apiKeyDetails(), []);
  const action = useAction();
  const [name, setName] = useState('');
  const [scope, setScope] = useState<Scope>('full');
  const [fresh, setFresh] = useState<{ key: string; masked: string } | undefined>(undefined);
  const [editing, setEditing] = useState<{ id: number; name: string } | undefined>(undefined);
  const current = 'apiKey' in credentials ? masked(credentials.apiKey) : undefined;

  const create = (event: Event) => {
    event.preventDefault();
    return action.run(async () => {
      const key = await client.createApiKey(name.trim() || undefined, scope);
      setFresh({ key, masked: masked(key) });
      setName('');
      keys.reload();
      return 'A new API key is ready: copy it now, it is shown in full only this once. Use it in the Authorization header: ReportingCloud-APIKey <key>.';
    });
  };
  const copy = (key: string) =>
    action.run(async () =>
      (await copyText(key)) ? 'Copied the key.' : 'Select the key and copy it by hand; this browser did not allow copying.',
    );
  const rename = (event: Event) => {
    event.preventDefault();
    const target = editing;
    if (!target) return;
    return action.run(async () => {
      await client.renameApiKey(target.id, target.name);
      setEditing(undefined);
      keys.reload();
      return 'Renamed the key.';
    });
  };
  const revoke = (key: ApiKeyDetails) =>
    action.run(async () => {
      const mine = key.masked === current;
      const warning = mine ? ' You signed in with this key: you will be signed out.' : '';
      const label = key.name ? `"${key.name}" (${key.masked})` : key.masked;
      if (!confirm(`Revoke the key ${label}? Programs using it stop working.${warning}`)) return;
      await client.revokeApiKey(key.id);
      if (mine) location.reload();
      if (key.masked === fresh?.masked) setFresh(undefined);
      keys.reload();
      return 'Revoked the key.';
    });

  return (
    <main>
      <h1>API keys</h1>
      <p class="muted">
        Programs and the client SDKs sign in with a key instead of your password. A key is shown in full once, when it is made; after that
        only its ends.
      </p>
      <form class="toolbar" onSubmit={(e) => void create(e)}>
        <label>
          <span>
            Name <span class="muted">(optional)</span>
          </span>
          <input
            name="keyName"
            maxLength={100}
            placeholder="e.g. Invoices (production)"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </label>
        <label class="fit">
          May do
          <select name="keyScope" value={scope} onChange={(e) => setScope(e.currentTarget.value as Scope)}>
            {(Object.keys(SCOPES) as Scope[]).map((s) => (
              <option key={s} value={s}>
                {SCOPES[s]}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary" disabled={action.busy}>
          Create a key
        </button>
      </form>
      <Notice error={action.error ?? keys.error} done={action.done} />
      {fresh && (
        <div class="card key fresh" aria-label="The new key">
          <code class="wrap">{fresh.key}</code>
          <span class="actions">
            <button type="button" onClick={() => void copy(fresh.key)}>
              Copy
            </button>
            <button type="button" onClick={() => setFresh(undefined)}>
              Done
            </button>
          </span>
        </div>
      )}
      {keys.data && keys.data.length === 0 && <p class="muted">No keys yet.</p>}
      <ul class="keys" aria-label="API keys">
        {(keys.data ?? []).map((key) => (
          <li key={key.id} class="card key">
            {editing?.id === key.id ? (
              <form class="actions" onSubmit={(e) => void rename(e)}>
                <label>
                  Name
                  <input
                    name="rename"
                    maxLength={100}
                    value={editing.name}
                    onInput={(e) => setEditing({ id: key.id, name: e.currentTarget.value })}
                  />
                </label>
                <button type="submit" class="primary" disabled={action.busy}>
                  Save
                </button>
                <button type="button" onClick={() => setEditing(undefined)}>
                  Cancel
                </button>
              </form>
            ) : (
              <strong>{key.name || <span class="muted">No name</span>}</strong>
            )}
            <code>{key.masked}</code>
            <span class="muted">
              {SCOPES[key.scope]} · {key.active ? 'active' : 'inactive'}
              {key.masked === current ? ' · this session' : ''}
              {key.masked === fresh?.masked ? ' · new' : ''}
            </span>
            <span class="muted">
              Made {when(key.createdAt)} · last used {when(key.lastUsedAt)}
            </span>
            <span class="actions">
              {editing?.id !== key.id && (
                <button type="button" onClick={() => setEditing({ id: key.id, name: key.name })}>
                  Rename
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
