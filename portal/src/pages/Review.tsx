import { useState } from 'preact/hooks';
import type { IncorrectWord, TrackedChange } from '@docsmith/client';
import { useSession } from '../session';
import { useAction, useLoad } from '../hooks';
import { DropZone } from '../components/DropZone';
import { Notice } from '../components/Notice';
import { readFile, saveBytes } from '../files';

const KINDS: Record<number, string> = { 4096: 'Inserted', 8192: 'Deleted', 16384: 'Formatting', 32768: 'Paragraph mark' };

/** Spell check a text in one of the server's dictionaries, with suggestions per word. */
function Spelling() {
  const { client } = useSession();
  const dictionaries = useLoad(() => client.availableDictionaries(), []);
  const [text, setText] = useState('');
  const [language, setLanguage] = useState('en_US.dic');
  const [words, setWords] = useState<(IncorrectWord & { suggestions: string[] })[] | undefined>(undefined);
  const action = useAction();
  const check = () =>
    action.run(async () => {
      const found = await client.checkSpelling(text, language);
      const unique = [...new Map(found.map((w) => [w.text, w])).values()];
      setWords(await Promise.all(unique.map(async (w) => ({ ...w, suggestions: await client.suggestions(w.text, language, 5) }))));
      return found.length === 0 ? 'No spelling mistakes found.' : undefined;
    });
  return (
    <section class="card stack" aria-labelledby="spelling-title">
      <h2 id="spelling-title">Spelling</h2>
      <label>
        Text to check
        <textarea rows={4} value={text} onInput={(e) => setText(e.currentTarget.value)} />
      </label>
      <div class="row">
        <label>
          Dictionary
          <select value={language} onChange={(e) => setLanguage(e.currentTarget.value)}>
            {(dictionaries.data ?? [language]).map((d) => (
              <option key={d} value={d}>
                {d}
              </option>
            ))}
          </select>
        </label>
        <button type="button" class="primary" disabled={action.busy || !text.trim()} onClick={() => void check()}>
          Check spelling
        </button>
      </div>
      <p class="muted small">Each check counts as one proofing call of your account.</p>
      <Notice error={action.error ?? dictionaries.error} done={action.done} />
      {words && words.length > 0 && (
        <ul class="plain" aria-label="Spelling mistakes">
          {words.map((w) => (
            <li key={w.text}>
              <strong>{w.text}</strong>
              {w.isDuplicate ? ' (repeated)' : ''}: {w.suggestions.length ? w.suggestions.join(', ') : 'no suggestion'}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** A document's tracked changes, each accepted or rejected in turn; the result downloaded. */
function TrackedChanges() {
  const { client } = useSession();
  const [document, setDocument] = useState<{ name: string; bytes: Uint8Array } | undefined>(undefined);
  const [changes, setChanges] = useState<TrackedChange[] | undefined>(undefined);
  const action = useAction();
  const load = (name: string, bytes: Uint8Array) =>
    action.run(async () => {
      setDocument({ name, bytes });
      setChanges(await client.trackedChanges(bytes));
    });
  const settle = (change: TrackedChange, accept: boolean) =>
    action.run(async () => {
      if (!document) return;
      const { document: bytes } = await client.removeTrackedChange(document.bytes, change.id, accept);
      setDocument({ ...document, bytes });
      setChanges(await client.trackedChanges(bytes));
      return `${accept ? 'Accepted' : 'Rejected'} the change "${change.text}".`;
    });
  return (
    <section class="card stack" aria-labelledby="changes-title">
      <h2 id="changes-title">Tracked changes</h2>
      <DropZone
        label="Document with tracked changes"
        hint={document ? document.name : 'DOCX, DOC, RTF or TX'}
        accept=".docx,.doc,.rtf,.tx"
        disabled={action.busy}
        onFiles={([file]) => file && void readFile(file).then((bytes) => load(file.name, bytes))}
      />
      <Notice error={action.error} done={action.done} />
      {changes && changes.length === 0 && <p class="muted">No tracked changes left.</p>}
      {changes && changes.length > 0 && (
        <ul class="plain" aria-label="Tracked changes">
          {changes.map((c) => (
            <li key={c.id} class="change">
              <span>
                <strong>{KINDS[c.changeKind] ?? 'Change'}</strong> “{c.text}” <span class="muted small">{c.userName}</span>
              </span>
              <span class="actions">
                <button type="button" disabled={action.busy} onClick={() => void settle(c, true)}>
                  Accept
                </button>
                <button type="button" disabled={action.busy} onClick={() => void settle(c, false)}>
                  Reject
                </button>
              </span>
            </li>
          ))}
        </ul>
      )}
      {document && changes && (
        <div>
          <button type="button" onClick={() => saveBytes(document.bytes, document.name)}>
            Download the document
          </button>
        </div>
      )}
    </section>
  );
}

/** The fonts the server's office has: what documents may use and still look as designed. */
function Fonts() {
  const { client } = useSession();
  const fonts = useLoad(() => client.fonts(), []);
  const [filter, setFilter] = useState('');
  const shown = (fonts.data ?? []).filter((f) => f.toLowerCase().includes(filter.trim().toLowerCase()));
  return (
    <section class="card stack" aria-labelledby="fonts-title">
      <h2 id="fonts-title">Fonts</h2>
      <p class="muted">
        {fonts.data ? `${fonts.data.length} fonts on this server.` : 'Loading fonts…'} A document using another font is shown with a
        replacement.
      </p>
      <label>
        Find a font
        <input type="search" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
      </label>
      <Notice error={fonts.error} />
      <ul class="plain columns" aria-label="Fonts">
        {shown.map((f) => (
          <li key={f}>{f}</li>
        ))}
      </ul>
    </section>
  );
}

/** Spelling, tracked changes and fonts: the review and proofing endpoints, for people. */
export function Review() {
  return (
    <main>
      <h1>Review</h1>
      <div class="stack">
        <Spelling />
        <TrackedChanges />
        <Fonts />
      </div>
    </main>
  );
}
