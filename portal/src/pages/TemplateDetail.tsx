import { Fragment } from 'preact';
import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import { useSession } from '../session';
import { useAction, useLoad } from '../hooks';
import { Notice } from '../components/Notice';
import { TemplatePages } from '../components/PageImages';
import { FieldTree } from '../components/FieldTree';
import { copyText, formatBytes, saveBytes } from '../files';
import { templatePath } from '../links';
import type { TemplateDiff } from '@docsmith/client';

/** One template: its pages, its fields and blocks, and what can be done with it. */
export function TemplateDetail({ name }: { name: string }) {
  const { client } = useSession();
  const [, navigate] = useLocation();
  const details = useLoad(async () => {
    const [info, pages] = await Promise.all([client.templateInfo(name), client.templatePageCount(name)]);
    return { info, pages };
  }, [name]);
  const links = useLoad(async () => (await client.shareLinks()).filter((l) => l.templateName === name), [name]);
  // Each earlier version with what its fields lack or have against the current one.
  const versions = useLoad(async () => {
    const list = await client.templateVersions(name);
    const current = list[0]!.version;
    const diffs = await Promise.all(list.slice(1).map((v) => client.diffTemplateVersions(name, v.version, current)));
    return list.map((v, i) => ({ ...v, diff: i === 0 ? undefined : diffs[i - 1] }));
  }, [name]);
  const action = useAction();
  const [shareUrl, setShareUrl] = useState<string | undefined>(undefined);
  const [days, setDays] = useState('7');

  const share = () =>
    action.run(async () => {
      const url = `${location.origin}/share/${encodeURIComponent(await client.shareToken(name, Number(days)))}`;
      setShareUrl(url);
      links.reload();
      const lasts = `It works without signing in for ${days} day${days === '1' ? '' : 's'}, until you revoke it or the template is replaced or deleted.`;
      return (await copyText(url)) ? `The preview link is copied. ${lasts}` : `Here is the preview link. ${lasts}`;
    });
  const revoke = (id: string) =>
    action.run(async () => {
      await client.revokeShareLink(id);
      links.reload();
      return 'The link is revoked; it opens nothing any more.';
    });
  const rollback = (version: number) =>
    action.run(async () => {
      if (!confirm(`Make version ${version} of "${name}" current again? The current one stays in the list.`)) return;
      const now = await client.rollbackTemplate(name, version);
      versions.reload();
      details.reload();
      return `Version ${version} is current again, as version ${now}.`;
    });
  const remove = () =>
    action.run(async () => {
      if (!confirm(`Delete the template "${name}"? This cannot be undone.`)) return;
      await client.deleteTemplate(name);
      navigate('/');
    });

  const data = details.data;
  return (
    <main>
      <p class="crumbs">
        <Link href="/">Templates</Link> › {name}
      </p>
      <h1 class="wrap">{name}</h1>
      <div class="actions">
        <Link href={templatePath(name, 'playground')} class="button primary">
          Merge data into it
        </Link>
        <button
          type="button"
          disabled={action.busy}
          onClick={() => void action.run(async () => saveBytes(await client.downloadTemplate(name), name))}
        >
          Download
        </button>
        <span class="share-make">
          <button type="button" disabled={action.busy} onClick={() => void share()}>
            Share a preview link
          </button>
          <select aria-label="Link lasts" value={days} onChange={(e) => setDays(e.currentTarget.value)}>
            {['1', '7', '30', '90'].map((d) => (
              <option key={d} value={d}>
                {d === '1' ? '1 day' : `${d} days`}
              </option>
            ))}
          </select>
        </span>
        <button type="button" class="danger" disabled={action.busy} onClick={() => void remove()}>
          Delete
        </button>
      </div>
      <Notice error={action.error ?? details.error} done={action.done} />
      {shareUrl && (
        <p>
          <input class="share-url" readOnly value={shareUrl} aria-label="Preview link" onFocus={(e) => e.currentTarget.select()} />
        </p>
      )}
      {links.data && links.data.length > 0 && (
        <section aria-label="Share links">
          <h2>Share links</h2>
          <ul class="links">
            {links.data.map((l) => (
              <li key={l.id}>
                <span>
                  Made {new Date(l.created).toLocaleString()}, expires {new Date(l.expires).toLocaleString()}
                </span>{' '}
                <button type="button" class="danger" disabled={action.busy} onClick={() => void revoke(l.id)}>
                  Revoke
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {versions.data && versions.data.length > 1 && (
        <section aria-label="Versions">
          <h2>Versions</h2>
          <ul class="links">
            {versions.data.map((v) => (
              <li key={v.version}>
                <span>
                  <strong>Version {v.version}</strong> · {new Date(v.modified).toLocaleString()} · {formatBytes(v.size)}
                  {v.current && ' · current'}
                  {v.diff && <span class="muted small"> · fields against the current: {describeDiff(v.diff)}</span>}
                </span>{' '}
                {!v.current && (
                  <span class="actions">
                    <button
                      type="button"
                      disabled={action.busy}
                      onClick={() =>
                        void action.run(async () => saveBytes(await client.downloadTemplate(name, v.version), versionFile(name, v.version)))
                      }
                    >
                      Download
                    </button>
                    <button type="button" disabled={action.busy} onClick={() => void rollback(v.version)}>
                      Roll back to this
                    </button>
                  </span>
                )}
              </li>
            ))}
          </ul>
        </section>
      )}
      {details.loading && !data && <p class="muted">Loading…</p>}
      {data && (
        <div class="split">
          <section>
            <h2>Fields and blocks</h2>
            <FieldTree info={data.info} />
            {Object.keys(data.info.userDocumentProperties).length > 0 && (
              <>
                <h3>Document properties</h3>
                <dl class="props">
                  {Object.entries(data.info.userDocumentProperties).map(([k, v]) => (
                    <Fragment key={k}>
                      <dt>{k}</dt>
                      <dd>{v}</dd>
                    </Fragment>
                  ))}
                </dl>
              </>
            )}
          </section>
          <section>
            <h2>
              {data.pages} page{data.pages === 1 ? '' : 's'}
            </h2>
            <TemplatePages name={name} pages={data.pages} />
          </section>
        </div>
      )}
    </main>
  );
}

/** "invoice.docx", version 2 -> "invoice (version 2).docx". */
function versionFile(name: string, version: number): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)} (version ${version})${name.slice(dot)}` : `${name} (version ${version})`;
}

/** What the current version adds to and takes from an earlier one's fields and blocks. */
function describeDiff(diff: TemplateDiff): string {
  const added = [...diff.blocks.added.map((b) => `block ${b}`), ...diff.fields.added];
  const removed = [...diff.blocks.removed.map((b) => `block ${b}`), ...diff.fields.removed];
  if (!added.length && !removed.length) return 'the same';
  return [added.length ? `now also ${added.join(', ')}` : '', removed.length ? `no longer ${removed.join(', ')}` : '']
    .filter(Boolean)
    .join('; ');
}
