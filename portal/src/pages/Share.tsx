import { useLoad } from '../hooks';
import { PageImages } from '../components/PageImages';
import { pageImage } from '../links';

interface ShareInfo {
  templateName: string;
  pages: number;
}

class LinkError extends Error {}

/** The read-only preview behind a share link: no sign-in, only the template's pages. */
export function Share({ token }: { token: string }) {
  const info = useLoad(async (): Promise<ShareInfo> => {
    const response = await fetch(`/share/${encodeURIComponent(token)}/info`);
    if (response.status === 404) throw new LinkError('This preview link is not valid, or the template was changed or deleted.');
    if (!response.ok) throw new LinkError('The preview cannot be shown right now; try again in a moment.');
    return (await response.json()) as ShareInfo;
  }, [token]);
  const data = info.data;
  return (
    <main class="share">
      {info.error && (
        <p class="notice error" role="alert">
          {info.error}
        </p>
      )}
      {info.loading && !data && <p class="muted">Loading the preview…</p>}
      {data && (
        <>
          <h1 class="wrap">{data.templateName}</h1>
          <p class="muted">
            {data.pages} page{data.pages === 1 ? '' : 's'} · read-only preview
          </p>
          <PageImages name={data.templateName} sources={Array.from({ length: data.pages }, (_, i) => pageImage(token, i + 1, 100))} />
        </>
      )}
    </main>
  );
}
