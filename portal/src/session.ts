import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import { DocsmithApiError, DocsmithClient, type AccountSettings, type Credentials } from '@docsmith/client';

// Credentials live in each tab's sessionStorage only (shared with the other open tabs, below): closing the last tab signs out.
const STORAGE_KEY = 'docsmith.credentials';

export function savedCredentials(): Credentials | null {
  try {
    const text = sessionStorage.getItem(STORAGE_KEY);
    const value: unknown = text ? JSON.parse(text) : null;
    if (value && typeof value === 'object' && ('apiKey' in value || 'username' in value)) return value as Credentials;
  } catch {
    // unreadable: signed out
  }
  return null;
}

export function saveCredentials(credentials: Credentials | null): void {
  if (credentials) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(credentials));
  else sessionStorage.removeItem(STORAGE_KEY);
}

/**
 * The tabs of this portal share one sign-in while any of them is open: a new tab asks the open ones
 * (a BroadcastChannel, same origin only), a sign-in or sign-out in one reaches all. Nothing outlives
 * the last tab: the credentials stay in each tab's sessionStorage. Returns the clean-up.
 */
type TabMessage = { type: 'ask' } | { type: 'signed-in'; credentials: Credentials } | { type: 'signed-out' };

let channel: BroadcastChannel | undefined;

export function shareSignIn(current: () => Credentials | null, changed: (credentials: Credentials | null) => void): () => void {
  if (typeof BroadcastChannel === 'undefined') return () => undefined;
  const own = new BroadcastChannel('docsmith.session');
  channel = own;
  own.onmessage = (event: MessageEvent<TabMessage>) => {
    const message = event.data;
    if (message.type === 'ask') {
      const credentials = current();
      if (credentials) own.postMessage({ type: 'signed-in', credentials } satisfies TabMessage);
    } else if (message.type === 'signed-in' && !current()) {
      saveCredentials(message.credentials);
      changed(message.credentials);
    } else if (message.type === 'signed-out' && current()) {
      saveCredentials(null);
      changed(null);
    }
  };
  if (!current()) own.postMessage({ type: 'ask' } satisfies TabMessage);
  return () => {
    own.close();
    if (channel === own) channel = undefined;
  };
}

/** Tells the other tabs of a sign-in (they take it when signed out) or a sign-out (they follow). */
export function tellOtherTabs(credentials: Credentials | null): void {
  channel?.postMessage((credentials ? { type: 'signed-in', credentials } : { type: 'signed-out' }) satisfies TabMessage);
}

export function clientFor(credentials: Credentials): DocsmithClient {
  return new DocsmithClient(location.origin, credentials);
}

export interface Session {
  client: DocsmithClient;
  credentials: Credentials;
  signOut(): void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

/** Test runs (watermarked, not counted) need a paid licence, as on the server. */
export function allowsTestRuns(settings: AccountSettings | undefined): boolean {
  return !!settings && settings.serialNumber !== 'FREE' && settings.serialNumber !== 'TRIAL';
}

/** Any failure as a sentence for people: the server's own message, or what went wrong on the way. */
export function describeError(error: unknown): string {
  if (error instanceof DocsmithApiError) {
    const reference = error.requestId ? ` (reference ${error.requestId})` : '';
    if (error.status === 401) return `You are not signed in, or your credentials were not accepted.${reference}`;
    if (error.status === 413) return `The file is too large for this server.${reference}`;
    if (error.status >= 500 && error.status !== 503 && error.status !== 504)
      return `The server could not do this: ${readable(error.message)}${reference}`;
    return `${readable(error.message)}${reference}`;
  }
  if (error instanceof TypeError && /fetch|network/i.test(error.message))
    return 'The server cannot be reached. Check your connection and try again.';
  if (error instanceof Error) return error.message;
  return 'Something went wrong.';
}

// A message that is itself JSON or markup is never shown raw.
function readable(message: string): string {
  const trimmed = message.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[') || trimmed.startsWith('<'))
    return 'the server sent an answer that could not be read.';
  return trimmed;
}
