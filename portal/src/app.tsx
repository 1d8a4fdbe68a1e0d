import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { Link, Route, Router, Switch, useLocation } from 'wouter-preact';
import type { Credentials } from '@docsmith/client';
import { SessionContext, clientFor, saveCredentials, savedCredentials, shareSignIn, tellOtherTabs, type Session } from './session';
import { SignIn } from './pages/SignIn';
import { Library } from './pages/Library';
import { TemplateDetail } from './pages/TemplateDetail';
import { Playground } from './pages/Playground';
import { Tools } from './pages/Tools';
import { Keys } from './pages/Keys';
import { Usage } from './pages/Usage';
import { Share } from './pages/Share';
import { Jobs } from './pages/Jobs';
import { Review } from './pages/Review';

const NAV = [
  { href: '/', label: 'Templates' },
  { href: '/playground', label: 'Playground' },
  { href: '/tools', label: 'Append & convert' },
  { href: '/jobs', label: 'Jobs' },
  { href: '/review', label: 'Review' },
  { href: '/keys', label: 'API keys' },
  { href: '/usage', label: 'Usage' },
];

function NavLink({ href, label }: { href: string; label: string }) {
  const [location] = useLocation();
  const active = href === '/' ? location === '/' || location.startsWith('/templates') : location.startsWith(href);
  return (
    <Link href={href} aria-current={active ? 'page' : undefined}>
      {label}
    </Link>
  );
}

const param = (value: string | undefined) => decodeURIComponent(value ?? '');

function SignedIn({ session }: { session: Session }) {
  const who = 'username' in session.credentials ? session.credentials.username : 'API key';
  return (
    <SessionContext.Provider value={session}>
      <a class="skip" href="#content">
        Skip to the content
      </a>
      <header class="top">
        <Link href="/" class="brand">
          docsmith
        </Link>
        <nav aria-label="Main">
          {NAV.map((item) => (
            <NavLink key={item.href} {...item} />
          ))}
        </nav>
        <span class="who">
          <span class="muted">{who}</span>{' '}
          <button type="button" class="link" onClick={session.signOut}>
            Sign out
          </button>
        </span>
      </header>
      <div id="content" tabIndex={-1}>
        <Switch>
          <Route path="/">{() => <Library />}</Route>
          <Route path="/templates/:name">{(params) => <TemplateDetail name={param(params.name)} />}</Route>
          <Route path="/playground">{() => <Playground name={undefined} />}</Route>
          <Route path="/playground/:name">{(params) => <Playground name={param(params.name)} />}</Route>
          <Route path="/tools">{() => <Tools />}</Route>
          <Route path="/jobs">{() => <Jobs />}</Route>
          <Route path="/review">{() => <Review />}</Route>
          <Route path="/keys">{() => <Keys />}</Route>
          <Route path="/usage">{() => <Usage />}</Route>
          <Route>
            {() => (
              <main>
                <h1>Not found</h1>
                <p>
                  There is no such page. <Link href="/">Back to the templates</Link>.
                </p>
              </main>
            )}
          </Route>
        </Switch>
      </div>
    </SessionContext.Provider>
  );
}

export function App() {
  const [credentials, setCredentials] = useState<Credentials | null>(savedCredentials);
  const latest = useRef(credentials);
  latest.current = credentials;
  useEffect(() => shareSignIn(() => latest.current, setCredentials), []);
  const session = useMemo<Session | null>(
    () =>
      credentials && {
        client: clientFor(credentials),
        credentials,
        signOut: () => {
          saveCredentials(null);
          setCredentials(null);
          tellOtherTabs(null);
        },
      },
    [credentials],
  );
  return (
    <Router base="/portal">
      <Switch>
        <Route path="/share/:token">{(params) => <Share token={param(params.token)} />}</Route>
        <Route>
          {() =>
            session ? (
              <SignedIn session={session} />
            ) : (
              <SignIn
                onSignedIn={(c) => {
                  saveCredentials(c);
                  setCredentials(c);
                  tellOtherTabs(c);
                }}
              />
            )
          }
        </Route>
      </Switch>
    </Router>
  );
}
