// The kept versions (the last 20, newest first), each with its SHA-256 and, for JavaScript, its
// code's hash; for admins, "Activate" makes an older one active again (a rollback writes no new
// version).
import { useState } from 'react';
import { errorText } from '../../api';
import { useFunctionActions, useFunctionVersions, type HostedFunction } from '../../data/functions';
import { ErrorBox, Notice } from '../../components/ui';
import { Confirm } from '../../components/confirm';
import { runtimeWords, shortSha, triggerWords } from './words';

interface Props {
  fn: HostedFunction;
  projectId: string;
  /** The project's role is admin (as the API answers it); a member gets no control to press. */
  admin: boolean;
}

export function Versions({ fn, projectId, admin }: Props) {
  // Keyed by the active version, so a save or an activation shows the new list.
  const versions = useFunctionVersions(projectId, fn.id);
  const { activate } = useFunctionActions(projectId);
  const [notice, setNotice] = useState<{ text: string; error?: boolean }>();

  return (
    <section className="card" aria-labelledby="fn-versions">
      <h2 id="fn-versions">Versions</h2>
      <ErrorBox error={versions.error} />
      {notice &&
        (notice.error ? (
          <div className="error" role="alert">
            {notice.text}
          </div>
        ) : (
          <Notice>{notice.text}</Notice>
        ))}
      {versions.data && (
        // Focusable, so a keyboard can scroll it at phone width when no button in it takes focus.
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Versions table">
          <table>
            <caption className="sr-only">Versions</caption>
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">SHA-256</th>
                <th scope="col">Definition</th>
                <th scope="col">Saved</th>
                <th scope="col">Active</th>
              </tr>
            </thead>
            <tbody>
              {versions.data.map((v) => (
                <tr key={v.version}>
                  <th scope="row">v{v.version}</th>
                  <td className="mono" title={v.sha256}>
                    {shortSha(v.sha256)}
                  </td>
                  <td>
                    {triggerWords(v)} · {v.runtime.type === 'http' ? runtimeWords(v) : 'JavaScript'} · fails{' '}
                    {v.failurePolicy}
                  </td>
                  <td>{new Date(v.createdAt).toLocaleString()}</td>
                  <td>
                    {v.active ? (
                      <strong>Active</strong>
                    ) : !admin ? (
                      <span className="muted">—</span>
                    ) : (
                      <Confirm
                        title={`Activate version ${v.version}?`}
                        action={`Activate v${v.version}`}
                        safe
                        onConfirm={() => {
                          setNotice(undefined);
                          activate.mutate(
                            { functionId: fn.id, version: v.version },
                            {
                              onSuccess: () => setNotice({ text: `Version ${v.version} is active again.` }),
                              onError: (err) => setNotice({ text: errorText(err), error: true }),
                            },
                          );
                        }}
                        trigger={
                          <button
                            type="button"
                            className="secondary"
                            aria-label={`Activate version ${v.version}`}
                          >
                            Activate
                          </button>
                        }
                      >
                        <p>
                          Every run from now on uses version {v.version} (SHA-256 {shortSha(v.sha256)})
                          instead of version {fn.version}. No new version is written; you can come back the
                          same way.
                        </p>
                      </Confirm>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
