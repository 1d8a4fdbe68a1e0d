import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { useSession } from '../session';
import { useAction, useLoad } from '../hooks';
import { Notice } from '../components/Notice';
import { PageImages } from '../components/PageImages';
import { FieldTree } from '../components/FieldTree';
import { copyText, saveBytes } from '../files';
import { pageImage, templatePath } from '../links';

/** One template: its pages, its fields and blocks, and what can be done with it. */
export function TemplateDetail({ name }: { name: string }) {
  const { client } = useSession();
  const [, navigate] = useLocation();
  const details = useLoad(async () => {
    const [info, pages, token] = await Promise.all([client.templateInfo(name), client.templatePageCount(name), client.shareToken(name)]);
    return { info, pages, token };
  }, [name]);
  const action = useAction();
  const [shareUrl, setShareUrl] = useState<string | undefined>(undefined);

  const share = () => action.run(async () => {
    const url = `${location.origin}/share/${encodeURIComponent(await client.shareToken(name))}`;
    setShareUrl(url);
    return (await copyText(url)) ? 'The preview link is copied. It works without signing in, until the template is replaced or deleted.' : 'Here is the preview link; it works without signing in, until the template is replaced or deleted.';
  });
  const remove = () => action.run(async () => {
    if (!confirm(`Delete the template "${name}"? This cannot be undone.`)) return;
    await client.deleteTemplate(name);
    navigate('/');
  });

  const data = details.data;
  return (
    <main>
      <p class="crumbs"><Link href="/">Templates</Link> › {name}</p>
      <h1 class="wrap">{name}</h1>
      <div class="actions">
        <Link href={templatePath(name, 'playground')} class="button primary">Merge data into it</Link>
        <button type="button" disabled={action.busy} onClick={() => void action.run(async () => saveBytes(await client.downloadTemplate(name), name))}>Download</button>
        <button type="button" disabled={action.busy} onClick={() => void share()}>Share a preview link</button>
        <button type="button" class="danger" disabled={action.busy} onClick={() => void remove()}>Delete</button>
      </div>
      <Notice error={action.error ?? details.error} done={action.done} />
      {shareUrl && <p><input class="share-url" readOnly value={shareUrl} aria-label="Preview link" onFocus={(e) => e.currentTarget.select()} /></p>}
      {details.loading && !data && <p class="muted">Loading…</p>}
      {data && (
        <div class="split">
          <section>
            <h2>Fields and blocks</h2>
            <FieldTree info={data.info} />
            {Object.keys(data.info.userDocumentProperties).length > 0 && (
              <>
                <h3>Document properties</h3>
                <dl class="props">{Object.entries(data.info.userDocumentProperties).map(([k, v]) => <Fragment key={k}><dt>{k}</dt><dd>{v}</dd></Fragment>)}</dl>
              </>
            )}
          </section>
          <section>
            <h2>{data.pages} page{data.pages === 1 ? '' : 's'}</h2>
            <PageImages name={name} sources={Array.from({ length: data.pages }, (_, i) => pageImage(data.token, i + 1, 100))} />
          </section>
        </div>
      )}
    </main>
  );
}
