import { useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import type { Divider, ReturnFormat } from '@docsmith/client';
import { useSession } from '../session';
import { useAction } from '../hooks';
import { DropZone } from '../components/DropZone';
import { Notice } from '../components/Notice';
import { baseName, extensionOf, readFile, saveBytes } from '../files';
import { FormatSelect } from '../components/FormatSelect';

const DOCUMENTS = '.docx,.doc,.rtf,.tx,.htm,.html';
const DIVIDERS: { value: Divider; label: string }[] = [
  { value: 'NewSection', label: 'on a new page' },
  { value: 'NewParagraph', label: 'in a new paragraph' },
  { value: 'None', label: 'in the same paragraph' },
];

/** Run the work as a background job (no request time limit); its result waits on the Jobs page. */
function Background({ value, onChange }: { value: boolean; onChange: (value: boolean) => void }) {
  return (
    <label class="check">
      <input type="checkbox" checked={value} onChange={(e) => onChange(e.currentTarget.checked)} /> In the background
    </label>
  );
}

function Queued({ id }: { id: string | undefined }) {
  return id ? (
    <p class="notice done" role="status">
      Queued job {id.slice(0, 8)}…: follow it on the <Link href="/jobs">Jobs</Link> page.
    </p>
  ) : null;
}

function Convert() {
  const { client } = useSession();
  const [file, setFile] = useState<File | undefined>(undefined);
  const [format, setFormat] = useState<ReturnFormat>('PDF');
  const [background, setBackground] = useState(false);
  const [queued, setQueued] = useState<string | undefined>(undefined);
  const action = useAction();
  const convert = () =>
    action.run(async () => {
      if (!file) return;
      setQueued(undefined);
      if (background) {
        setQueued((await client.convertJob(await readFile(file), format)).id);
        return;
      }
      saveBytes(await client.convert(await readFile(file), format), `${baseName(file.name)}.${extensionOf(format)}`, format);
      return `Converted ${file.name} to ${format}.`;
    });
  return (
    <section class="card stack" aria-labelledby="convert-title">
      <h2 id="convert-title">Convert</h2>
      <DropZone
        label="Document to convert"
        hint={file ? file.name : 'DOCX, DOC, RTF, TX or HTML'}
        accept={DOCUMENTS}
        onFiles={([f]) => {
          setFile(f);
          action.clear();
        }}
      />
      <div class="toolbar">
        <FormatSelect value={format} onChange={setFormat} />
        <Background value={background} onChange={setBackground} />
        <button type="button" class="primary" disabled={!file || action.busy} onClick={() => void convert()}>
          {action.busy ? 'Converting…' : background ? 'Convert in the background' : 'Convert and download'}
        </button>
      </div>
      <Notice error={action.error} done={action.done} />
      <Queued id={queued} />
    </section>
  );
}

interface Part {
  id: number;
  file: File;
  divider: Divider;
}

function Append() {
  const { client } = useSession();
  const [parts, setParts] = useState<Part[]>([]);
  const [format, setFormat] = useState<ReturnFormat>('PDF');
  const [background, setBackground] = useState(false);
  const [queued, setQueued] = useState<string | undefined>(undefined);
  const action = useAction();
  const add = (files: File[]) =>
    setParts((old) => [...old, ...files.map((file, i) => ({ id: Date.now() + i, file, divider: 'NewSection' as Divider }))]);
  const move = (index: number, by: number) =>
    setParts((old) => {
      const next = [...old];
      const [part] = next.splice(index, 1);
      next.splice(Math.max(0, Math.min(next.length, index + by)), 0, part!);
      return next;
    });
  const join = () =>
    action.run(async () => {
      if (parts.length < 2) throw new Error('Add at least two documents to append.');
      const documents = await Promise.all(
        parts.map(async (part) => ({ document: await readFile(part.file), documentDivider: part.divider })),
      );
      setQueued(undefined);
      if (background) {
        setQueued((await client.appendJob({ returnFormat: format, documents })).id);
        return;
      }
      saveBytes(await client.append({ returnFormat: format, documents }), `appended.${extensionOf(format)}`, format);
      return `Appended ${parts.length} documents as ${format}.`;
    });
  return (
    <section class="card stack" aria-labelledby="append-title">
      <h2 id="append-title">Append</h2>
      <DropZone
        label="Documents to append"
        hint="Drop several DOCX, DOC, RTF, TX or HTML files, in order"
        accept={DOCUMENTS}
        multiple
        onFiles={add}
      />
      {parts.length > 0 && (
        <ol class="parts">
          {parts.map((part, i) => (
            <li key={part.id}>
              <span class="wrap">{part.file.name}</span>
              {i === 0 ? (
                <span class="muted divider">first</span>
              ) : (
                <select
                  aria-label={`How ${part.file.name} follows the document before it`}
                  value={String(part.divider)}
                  onChange={(e) => {
                    const value = e.currentTarget.value as Divider;
                    setParts((old) => old.map((p) => (p.id === part.id ? { ...p, divider: value } : p)));
                  }}
                >
                  {DIVIDERS.map((d) => (
                    <option key={d.value} value={String(d.value)}>
                      {d.label}
                    </option>
                  ))}
                </select>
              )}
              <span class="actions">
                <button type="button" aria-label={`Move ${part.file.name} up`} disabled={i === 0} onClick={() => move(i, -1)}>
                  ↑
                </button>
                <button
                  type="button"
                  aria-label={`Move ${part.file.name} down`}
                  disabled={i === parts.length - 1}
                  onClick={() => move(i, 1)}
                >
                  ↓
                </button>
                <button
                  type="button"
                  aria-label={`Remove ${part.file.name}`}
                  onClick={() => setParts((old) => old.filter((p) => p.id !== part.id))}
                >
                  ✕
                </button>
              </span>
            </li>
          ))}
        </ol>
      )}
      <div class="toolbar">
        <FormatSelect value={format} onChange={setFormat} />
        <Background value={background} onChange={setBackground} />
        <button type="button" class="primary" disabled={parts.length < 2 || action.busy} onClick={() => void join()}>
          {action.busy ? 'Appending…' : background ? 'Append in the background' : 'Append and download'}
        </button>
      </div>
      <Notice error={action.error} done={action.done} />
      <Queued id={queued} />
    </section>
  );
}

/** Tools that need no stored template: append documents, convert one. */
export function Tools() {
  return (
    <main>
      <h1>Append and convert</h1>
      <div class="split">
        <Append />
        <Convert />
      </div>
    </main>
  );
}
