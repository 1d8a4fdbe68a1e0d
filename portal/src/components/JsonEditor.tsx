import { useEffect, useRef } from 'preact/hooks';
import { EditorView, basicSetup } from 'codemirror';
import { json } from '@codemirror/lang-json';
import { linter, lintGutter } from '@codemirror/lint';
import { jsonProblems } from '../json';

interface Props {
  value: string;
  label: string;
  onChange(value: string): void;
}

/** A JSON editor (CodeMirror) that marks syntax errors where they are. */
export function JsonEditor({ value, label, onChange }: Props) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const changed = useRef(onChange);
  changed.current = onChange;

  useEffect(() => {
    if (!host.current) return;
    view.current = new EditorView({
      doc: value,
      parent: host.current,
      extensions: [
        basicSetup, json(), linter((v) => jsonProblems(v.state.doc.toString()).map((p) => ({ ...p, severity: 'error' as const })), { delay: 300 }), lintGutter(),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ 'aria-label': label }),
        EditorView.updateListener.of((update) => { if (update.docChanged) changed.current(update.state.doc.toString()); }),
      ],
    });
    return () => view.current?.destroy();
  }, []);

  // A new value from outside (another template's sample) replaces the text.
  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
    }
  }, [value]);

  return <div class="json-editor" ref={host} />;
}
