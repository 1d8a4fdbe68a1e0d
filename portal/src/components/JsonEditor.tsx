import { useEffect, useRef } from 'preact/hooks';
import type { EditorView } from '@codemirror/view';

interface Props {
  value: string;
  label: string;
  onChange(value: string): void;
}

/** A JSON editor (CodeMirror, loaded on first use) that marks syntax errors where they are. */
export function JsonEditor({ value, label, onChange }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef({ value, onChange });
  latest.current = { value, onChange };

  useEffect(() => {
    let gone = false;
    void import('./editorSetup').then(({ createJsonEditor }) => {
      if (gone || !host.current) return;
      host.current.replaceChildren();
      view.current = createJsonEditor({ parent: host.current, doc: latest.current.value, label, onChange: (text) => latest.current.onChange(text) });
    });
    return () => { gone = true; view.current?.destroy(); };
  }, []);

  // A new value from outside (another template's sample) replaces the text.
  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    }
  }, [value]);

  return <div class="json-editor" ref={host}><p class="muted small loading">Loading the editor…</p></div>;
}
