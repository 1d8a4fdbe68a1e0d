import { EditorView, basicSetup } from 'codemirror';
import { json } from '@codemirror/lang-json';
import { linter, lintGutter } from '@codemirror/lint';
import { jsonProblems } from '../json';

/** CodeMirror with JSON highlighting and our error marks; loaded only when an editor is shown. */
export function createJsonEditor(options: { parent: HTMLElement; doc: string; label: string; onChange(text: string): void }): EditorView {
  return new EditorView({
    doc: options.doc,
    parent: options.parent,
    extensions: [
      basicSetup,
      json(),
      lintGutter(),
      linter((view) => jsonProblems(view.state.doc.toString()).map((problem) => ({ ...problem, severity: 'error' as const })), {
        delay: 300,
      }),
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({ 'aria-label': options.label }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) options.onChange(update.state.doc.toString());
      }),
    ],
  });
}
