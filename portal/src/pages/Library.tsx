import { useState } from 'preact/hooks';
import { Link, useLocation } from 'wouter-preact';
import sampleTemplateUrl from '../../../samples/invoice/template.docx?url';
import sampleData from '../../../samples/invoice/data.json';
import type { TemplateListEntry, TemplateSyntax } from '@docsmith/client';
import { useSession } from '../session';
import { useAction, useLoad } from '../hooks';
import { DropZone } from '../components/DropZone';
import { Notice } from '../components/Notice';
import { TEMPLATE_EXTENSIONS, formatBytes, isTemplateFile, readFile, saveBytes } from '../files';
import { templatePath, useTemplateImage } from '../links';
import { offerData } from '../offered';

/** The sample a new account may start from (samples/invoice/: a real invoice and its data). */
const SAMPLE_NAME = 'sample-invoice.docx';

/** The template library: upload by drag and drop, first-page thumbnails, download, replace, delete. */
export function Library() {
  const { client } = useSession();
  const list = useLoad(() => client.listTemplates(), []);
  const action = useAction();
  const templates = list.data ?? [];
  const [syntax, setSyntax] = useState<TemplateSyntax>('word');

  const upload = (files: File[], replacing?: string) =>
    action.run(async () => {
      const rejected = files.filter((file) => !isTemplateFile(file.name));
      if (rejected.length > 0)
        throw new Error(
          `${rejected.map((f) => `"${f.name}"`).join(', ')} ${rejected.length === 1 ? 'is not a template' : 'are not templates'}: upload DOCX, DOC, RTF or TX files.`,
        );
      const existing = new Set(templates.map((t) => t.templateName));
      const done: string[] = [];
      for (const file of files) {
        const name = replacing ?? file.name;
        if (!replacing && existing.has(name) && !confirm(`A template named "${name}" exists. Replace it?`)) continue;
        await client.uploadTemplate(name, await readFile(file), syntax === 'word' ? {} : { templateSyntax: syntax });
        done.push(name);
      }
      list.reload();
      return done.length > 0 ? `${replacing ? 'Replaced' : 'Uploaded'} ${done.join(', ')}.` : undefined;
    });

  const remove = (name: string) =>
    action.run(async () => {
      if (!confirm(`Delete the template "${name}"? This cannot be undone.`)) return;
      await client.deleteTemplate(name);
      list.reload();
      return `Deleted ${name}.`;
    });

  const download = (name: string) => action.run(async () => saveBytes(await client.downloadTemplate(name), name));

  // A first template without making one: the sample invoice, stored, then in the playground with its data.
  const [, navigate] = useLocation();
  const trySample = () =>
    action.run(async () => {
      const template = await fetch(sampleTemplateUrl);
      if (!template.ok) throw new Error('The sample could not be loaded from this server.');
      await client.uploadTemplate(SAMPLE_NAME, new Uint8Array(await template.arrayBuffer()));
      offerData(SAMPLE_NAME, JSON.stringify(sampleData, null, 2));
      navigate(templatePath(SAMPLE_NAME, 'playground'));
      return undefined;
    });

  return (
    <main>
      <h1>Templates</h1>
      <label class="syntax-choice">
        How the templates mark their data
        <select value={syntax} onChange={(e) => setSyntax(e.currentTarget.value as TemplateSyntax)}>
          <option value="word">Word merge fields and txmb_ blocks</option>
          <option value="docxtemplater">
            Tags typed as text: docxtemplater’s {'{name}'}, {'{#items}…{/items}'}
          </option>
        </select>
      </label>
      <DropZone
        label="Upload templates"
        hint="Drop DOCX, DOC, RTF or TX files here, or click to choose"
        accept={TEMPLATE_EXTENSIONS.join(',')}
        multiple
        disabled={action.busy}
        onFiles={(files) => void upload(files)}
      />
      <Notice error={action.error ?? list.error} done={action.done} />
      {list.loading && !list.data ? (
        <p class="muted">Loading templates…</p>
      ) : templates.length === 0 ? (
        <div class="card empty">
          <p>No templates yet. Upload a Word document with merge fields, or start from a sample: an invoice with its data.</p>
          <button type="button" class="primary" disabled={action.busy} onClick={() => void trySample()}>
            Try the sample invoice
          </button>
        </div>
      ) : (
        <ul class="cards" aria-label="Template library">
          {templates.map((t) => (
            <TemplateCard
              key={t.templateName}
              template={t}
              busy={action.busy}
              onDownload={() => void download(t.templateName)}
              onReplace={(file) => void upload([file], t.templateName)}
              onDelete={() => void remove(t.templateName)}
            />
          ))}
        </ul>
      )}
    </main>
  );
}

interface CardProps {
  template: TemplateListEntry;
  busy: boolean;
  onDownload(): void;
  onReplace(file: File): void;
  onDelete(): void;
}

function TemplateCard({ template, busy, onDownload, onReplace, onDelete }: CardProps) {
  const [broken, setBroken] = useState(false);
  const name = template.templateName;
  const image = useTemplateImage(name, 1, 50, `${template.modified}:${template.size}`);
  return (
    <li class="card template-card" data-template={name}>
      <Link href={templatePath(name)} class="thumb" aria-label={`Open ${name}`}>
        {image && !broken ? (
          <img src={image} alt={`First page of ${name}`} onError={() => setBroken(true)} />
        ) : (
          <span class="muted">{broken || image === null ? 'No preview' : '…'}</span>
        )}
      </Link>
      <div class="meta">
        <Link href={templatePath(name)} class="name">
          {name}
        </Link>
        <span class="muted">
          {formatBytes(template.size)} · {new Date(template.modified).toLocaleString()}
        </span>
      </div>
      <div class="actions">
        <Link href={templatePath(name, 'playground')} class="button">
          Merge
        </Link>
        <button type="button" onClick={onDownload} disabled={busy}>
          Download
        </button>
        <label class="button">
          Replace
          <input
            type="file"
            class="visually-hidden"
            accept={TEMPLATE_EXTENSIONS.join(',')}
            disabled={busy}
            aria-label={`Replace ${name}`}
            onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              if (file) onReplace(file);
              event.currentTarget.value = '';
            }}
          />
        </label>
        <button type="button" class="danger" onClick={onDelete} disabled={busy}>
          Delete
        </button>
      </div>
    </li>
  );
}
