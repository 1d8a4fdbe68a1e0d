import { useEffect, useState } from 'preact/hooks';
import { useSession } from './session';

/**
 * A stored template's page as an object URL, fetched with the user's own credentials (no
 * share link is made for it). `version` (modified time and size) reloads it after a replace.
 * undefined while loading, null when it cannot be rendered.
 */
export function useTemplateImage(name: string, page: number, zoom: 25 | 50 | 100 | 150, version = ''): string | null | undefined {
  const { client } = useSession();
  const [url, setUrl] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    let live = true;
    let made: string | undefined;
    setUrl(undefined);
    client.templatePageImage(name, page, zoom).then(
      (bytes) => {
        made = URL.createObjectURL(new Blob([bytes as Uint8Array<ArrayBuffer>], { type: 'image/png' }));
        if (live) setUrl(made);
        else URL.revokeObjectURL(made);
      },
      () => {
        if (live) setUrl(null);
      },
    );
    return () => {
      live = false;
      if (made) URL.revokeObjectURL(made);
    };
  }, [name, page, zoom, version]);
  return url;
}

/** A page image of a share link (the public share view). */
export const pageImage = (token: string, page: number, zoom: 25 | 50 | 100 | 150) =>
  `/share/${encodeURIComponent(token)}/pages/${page}.png?zoom=${zoom}`;

export const templatePath = (name: string, view: 'templates' | 'playground' = 'templates') => `/${view}/${encodeURIComponent(name)}`;
