// The JavaScript editor: CodeMirror 6, bundled by Vite (no CDN). CodeMirror styles itself through
// style-mod, which on a document writes a <style> element that the dashboard's CSP (style-src
// 'self', no nonce) refuses; inside a shadow root it uses a constructed stylesheet
// (adoptedStyleSheets), which the CSP allows. So the editor lives in a shadow root of its own.
import { useEffect, useMemo, useRef, useState } from 'react';
import { createPortal } from 'react-dom';
import CodeMirror, { EditorView } from '@uiw/react-codemirror';
import { javascript } from '@codemirror/lang-javascript';

interface Props {
  value: string;
  /** Left out for a read-only view (a member's): the code can be read and copied, not changed. */
  onChange?: (value: string) => void;
  /** What a screen reader announces for the editable area. */
  label: string;
  /** A problem of the code, in words (announced with the editor; shown under it by the form). */
  problem?: string;
}

const look = EditorView.theme({
  '&': { border: '1px solid #8a8f98', borderRadius: '6px', fontSize: '14px', backgroundColor: '#fff' },
  '&.cm-focused': { outline: '2px solid #1a56db', outlineOffset: '1px' },
  '.cm-scroller': { fontFamily: 'ui-monospace, SFMono-Regular, Menlo, Consolas, monospace' },
  '.cm-content': { minHeight: '12rem' },
  // The gutter's default grey is too faint against white for the contrast rule.
  '.cm-gutters': { color: '#4b5563', backgroundColor: '#f3f4f6' },
});

/**
 * Typing over a selection: Chrome's own editing replaces the highlighted spans and re-creates
 * their look as a style attribute, which the CSP refuses (a console error, though CodeMirror
 * redraws from its state anyway). The editor makes that change itself instead, through the same
 * input handlers (bracket closing) a typed character goes through.
 */
const typeOverSelection = EditorView.domEventHandlers({
  beforeinput(event, view) {
    const { main } = view.state.selection;
    if (event.inputType !== 'insertText' || !event.data || main.empty || view.composing) return false;
    const { from, to } = main;
    const text = event.data;
    const insert = () => view.state.update(view.state.replaceSelection(text), { userEvent: 'input.type' });
    event.preventDefault();
    if (!view.state.facet(EditorView.inputHandler).some((h) => h(view, from, to, text, insert)))
      view.dispatch(insert());
    return true;
  },
});

export function CodeEditor({ value, onChange, label, problem }: Props) {
  const readOnly = !onChange;
  const host = useRef<HTMLDivElement>(null);
  const [shadow, setShadow] = useState<ShadowRoot>();
  useEffect(() => {
    const el = host.current;
    if (el) setShadow(el.shadowRoot ?? el.attachShadow({ mode: 'open' }));
  }, []);
  const extensions = useMemo(
    () => [
      javascript(),
      look,
      typeOverSelection,
      EditorView.lineWrapping,
      EditorView.contentAttributes.of({
        'aria-label': label,
        ...(problem ? { 'aria-invalid': 'true', 'aria-description': problem } : {}),
      }),
    ],
    [label, problem],
  );
  return (
    <div ref={host} className="code-editor">
      {shadow &&
        createPortal(
          <CodeMirror
            value={value}
            onChange={onChange}
            readOnly={readOnly}
            root={shadow}
            extensions={extensions}
            basicSetup={{ foldGutter: false, highlightActiveLine: false }}
          />,
          shadow,
        )}
    </div>
  );
}
