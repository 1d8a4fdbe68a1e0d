/**
 * What an API key may do. A key's scope is chosen when it is made and never changes (make another
 * key for other work); Basic sign-ins and keys from the vendor's PUT /account/apikey are `full`.
 */
export const SCOPES = ['full', 'merge', 'read'] as const;
export type Scope = (typeof SCOPES)[number];

/** What a route does, read from its address under /v1 and its method. */
export type Access = 'settings' | 'documents' | 'templates:read' | 'templates:write' | 'keys';

const ALLOWED: Record<Scope, readonly Access[]> = {
  full: ['settings', 'documents', 'templates:read', 'templates:write', 'keys'],
  // Document work, stored templates named in it included; no template management, no keys.
  merge: ['settings', 'documents'],
  // Reading stored templates; no documents made, nothing changed.
  read: ['settings', 'templates:read'],
};

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  full: 'everything the account can do',
  merge:
    'document work (merge, convert, append, thumbnails, review, proofing, jobs) with stored templates by name; no template uploads or deletions, no keys',
  read: 'reading stored templates (list, download, info, page count, thumbnails, versions); nothing else',
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** The access a route needs; anything not named here needs a full key. */
export function accessOf(method: string, route: string): Access {
  const path = route.replace(/^\/v1/, '');
  if (path === '/account/settings') return 'settings';
  if (path.startsWith('/templates/')) return method === 'GET' ? 'templates:read' : 'templates:write';
  // Share links publish a template's preview: template management.
  if (path.startsWith('/document/share')) return 'templates:write';
  if (/^\/(document|processing|proofing|fonts)\//.test(path) || path === '/jobs' || path.startsWith('/jobs/')) return 'documents';
  return 'keys';
}

const WHAT: Record<Access, string> = {
  settings: 'reading the account settings',
  documents: 'document work',
  'templates:read': 'reading stored templates',
  'templates:write': 'changing stored templates',
  keys: 'managing the account and its keys',
};

/** Null when the scope allows the access, else the refusal's message. */
export function refusal(scope: Scope, access: Access): string | null {
  if (ALLOWED[scope].includes(access)) return null;
  const allowed = SCOPES.filter((s) => ALLOWED[s].includes(access)).join(' or ');
  return `This API key's scope is "${scope}" (${SCOPE_DESCRIPTIONS[scope]}); ${WHAT[access]} needs a key with scope ${allowed}.`;
}
