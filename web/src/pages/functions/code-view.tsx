// The active version's code for a member, who reads but cannot change it: the same editor,
// read-only (the text can be selected and copied). Admins see the code in the Edit form instead.
import { lazy, Suspense } from 'react';
import type { HostedFunction } from '../../data/functions';
import { Progress } from '../../components/ui';

// CodeMirror is most of a megabyte: loaded only when the code is shown.
const CodeEditor = lazy(() => import('./code-editor').then((m) => ({ default: m.CodeEditor })));

export function CodeView({ fn }: { fn: HostedFunction }) {
  if (fn.runtime.type !== 'javascript') return null;
  return (
    <section className="card" aria-labelledby="fn-code">
      <h2 id="fn-code">Code</h2>
      <p className="muted">Version {fn.version}, read-only.</p>
      <Suspense fallback={<Progress label="Loading the code…" />}>
        <CodeEditor value={fn.runtime.code} label="Code" />
      </Suspense>
    </section>
  );
}
