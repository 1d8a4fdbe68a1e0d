import { useEffect, useState } from 'preact/hooks';
import { useSession } from './session';

/** Share tokens give <img> elements a credential-free URL for a template's page images. */
export function useShareTokens(names: string[], version = ''): Record<string, string> {
  const { client } = useSession();
  const [tokens, setTokens] = useState<Record<string, string>>({});
  // A replaced template needs a new token: the version (modified times) is part of the key.
  const key = `${names.join('\n')}\n${version}`;
  useEffect(() => {
    let live = true;
    void Promise.all(names.map(async (name) => [name, await client.shareToken(name).catch(() => '')] as const))
      .then((pairs) => { if (live) setTokens(Object.fromEntries(pairs)); });
    return () => { live = false; };
  }, [key]);
  return tokens;
}

export const pageImage = (token: string, page: number, zoom: 25 | 50 | 100 | 150) =>
  `/share/${encodeURIComponent(token)}/pages/${page}.png?zoom=${zoom}`;

export const templatePath = (name: string, view: 'templates' | 'playground' = 'templates') => `/${view}/${encodeURIComponent(name)}`;
