import { useEffect, useRef } from 'preact/hooks';
import type { EditorView } from '@codemirror/view';

interface Props {
  value: string;
  /** Changes when `value` is a replacement from outside; otherwise the editor owns its text. */
  version: number;
  label: string;
  onChange(value: string): void;
}

/** A JSON editor (CodeMirror, loaded on first use) that marks syntax errors where they are. */
export function JsonEditor({ value, version, label, onChange }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef({ value, onChange });
  latest.current = { value, onChange };
  // The editor is not driven by `value` on every render: a render (and its effect, run after
  // paint) may bring back an older report of ours while keys are still arriving. Putting that
  // back into the editor lost keys, and echoed, the two versions chasing each other for good
  // (the tab froze under fast typing). Only a new `version` replaces the text.
  const replacing = useRef(false);

  useEffect(() => {
    let gone = false;
    void import('./editorSetup').then(({ createJsonEditor }) => {
      if (gone || !host.current) return;
      host.current.replaceChildren();
      view.current = createJsonEditor({
        parent: host.current,
        doc: latest.current.value,
        label,
        onChange: (text) => {
          if (!replacing.current) latest.current.onChange(text);
        },
      });
    });
    return () => {
      gone = true;
      view.current?.destroy();
    };
  }, []);

  // A replacement from outside (another template's sample) is not reported back as an edit.
  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    const next = latest.current.value;
    if (editor.state.doc.toString() !== next) {
      replacing.current = true;
      try {
        editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: next } });
      } finally {
        replacing.current = false;
      }
    }
  }, [version]);

  return (
    <div class="json-editor" ref={host}>
      <p class="muted small loading">Loading the editor…</p>
    </div>
  );
}
