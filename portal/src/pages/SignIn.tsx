import { useState } from 'preact/hooks';
import { DocsmithApiError, type Credentials } from '@docsmith/client';
import { clientFor, describeError } from '../session';
import { Notice } from '../components/Notice';

/** Sign in with a user name and password, or with an API key; checked against /account/settings. */
export function SignIn({ onSignedIn }: { onSignedIn(credentials: Credentials): void }) {
  const [mode, setMode] = useState<'password' | 'apikey'>('password');
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [apiKey, setApiKey] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);

  const submit = async (event: Event) => {
    event.preventDefault();
    const credentials: Credentials = mode === 'apikey' ? { apiKey: apiKey.trim() } : { username: username.trim(), password };
    if (mode === 'apikey' ? !apiKey.trim() : !username.trim() || !password) {
      setError(mode === 'apikey' ? 'Enter your API key.' : 'Enter your user name and password.');
      return;
    }
    setBusy(true);
    setError(undefined);
    try {
      await clientFor(credentials).accountSettings();
      onSignedIn(credentials);
    } catch (failure) {
      setError(
        failure instanceof DocsmithApiError && (failure.status === 401 || failure.status === 403)
          ? mode === 'apikey'
            ? 'This API key was not accepted. Check it, or sign in with your user name and password.'
            : 'The user name or password is not right.'
          : describeError(failure),
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <main class="signin">
      <h1>Sign in to docsmith</h1>
      <div class="tabs" role="tablist">
        <button type="button" role="tab" aria-selected={mode === 'password'} onClick={() => setMode('password')}>
          User name and password
        </button>
        <button type="button" role="tab" aria-selected={mode === 'apikey'} onClick={() => setMode('apikey')}>
          API key
        </button>
      </div>
      <form class="card stack" onSubmit={submit}>
        {mode === 'password' ? (
          <>
            <label>
              User name
              <input name="username" autocomplete="username" value={username} onInput={(e) => setUsername(e.currentTarget.value)} />
            </label>
            <label>
              Password
              <input
                name="password"
                type="password"
                autocomplete="current-password"
                value={password}
                onInput={(e) => setPassword(e.currentTarget.value)}
              />
            </label>
          </>
        ) : (
          <label>
            API key
            <input name="apikey" autocomplete="off" spellcheck={false} value={apiKey} onInput={(e) => setApiKey(e.currentTarget.value)} />
          </label>
        )}
        <Notice error={error} />
        <button class="primary" type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <p class="muted">
        Accounts and their first keys are made by the operator: <code>npx docsmith account create</code>. The API reference is at{' '}
        <a href="/docs">/docs</a>.
      </p>
    </main>
  );
}
