// The project's files: upload through the presigned flow (request, PUT with progress, confirm),
// list newest first, open and delete.
import { useRef, useState, type FormEvent } from 'react';
import { api, call, formatBytes } from '../api';
import { ErrorBox, Notice, Progress } from '../components/ui';
import { useAction } from '../hooks';
import { useProjectFiles, useRefreshFiles } from '../data/files';
import { ConfirmDialog } from '../components/confirm';
import type { ProjectPageProps } from './project-shell';

/** PUT of the bytes with upload progress (fetch reports none), as the signed URL expects them. */
function putWithProgress(url: string, file: File, onProgress: (percent: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('content-type', file.type || 'application/octet-stream');
    xhr.upload.onprogress = (e) => e.lengthComputable && onProgress(Math.round((e.loaded / e.total) * 100));
    xhr.onload = () =>
      xhr.status >= 200 && xhr.status < 300
        ? resolve()
        : reject(new Error(`The storage refused the upload (HTTP ${xhr.status}). Try again.`));
    xhr.onerror = () =>
      reject(new Error('The upload could not reach the storage. Check your connection and try again.'));
    xhr.send(file);
  });
}

export function FilesPage({ project }: ProjectPageProps) {
  const projectId = project.id;
  const params = { path: { projectId } };
  const [cursor, setCursor] = useState<string | undefined>(undefined);
  const [history, setHistory] = useState<(string | undefined)[]>([]);
  const files = useProjectFiles(projectId, cursor);
  const refresh = useRefreshFiles(projectId);
  const [step, setStep] = useState<{ label: string; value?: number } | null>(null);
  const [notice, setNotice] = useState('');
  const input = useRef<HTMLInputElement>(null);
  const action = useAction();

  const upload = (e: FormEvent) => {
    e.preventDefault();
    const file = input.current?.files?.[0];
    if (!file) {
      action.setError(new Error('Choose a file to upload first.'));
      return;
    }
    setNotice('');
    void action
      .run(async () => {
        setStep({ label: 'Step 1 of 3: asking for an upload URL…' });
        const contentType = file.type || 'application/octet-stream';
        const ticket = await call(
          api.POST('/api/projects/{projectId}/files/upload-request', {
            params,
            body: { filename: file.name, contentType, size: file.size },
          }),
        );
        setStep({ label: 'Step 2 of 3: uploading…', value: 0 });
        await putWithProgress(ticket.data.signedUrl, file, (value) =>
          setStep({ label: `Step 2 of 3: uploading (${value}%)…`, value }),
        );
        setStep({ label: 'Step 3 of 3: confirming…' });
        await call(
          api.POST('/api/projects/{projectId}/files/upload-confirm', {
            params,
            body: { filePath: ticket.data.filePath, size: file.size },
          }),
        );
        setNotice(`Uploaded ${file.name}.`);
        if (input.current) input.current.value = '';
        setCursor(undefined);
        setHistory([]);
        await refresh();
      })
      .finally(() => setStep(null));
  };

  const [pending, setPending] = useState<{ path: string; name: string } | null>(null);
  const remove = (path: string, name: string) => {
    void action.run(async () => {
      await call(api.DELETE('/api/projects/{projectId}/files', { params, body: { path } }));
      setNotice(`Deleted ${name}.`);
      await refresh();
    });
  };

  const rows = files.data?.data ?? [];
  return (
    <>
      <h1>Files</h1>
      <form className="card inline" onSubmit={upload}>
        <label htmlFor="file-input">File (at most 10 MB)</label>
        <input id="file-input" type="file" ref={input} />
        <button type="submit" disabled={action.busy}>
          Upload
        </button>
      </form>
      {step && <Progress label={step.label} value={step.value} />}
      <ErrorBox error={action.error} />
      {notice && <Notice>{notice}</Notice>}
      <ErrorBox error={files.error} />
      {files.isPending && <Progress label="Loading files…" />}
      {files.data && rows.length === 0 && <p>No files yet.</p>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Files</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Type</th>
                <th scope="col">Size</th>
                <th scope="col">Uploaded</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((f) => (
                <tr key={f.path}>
                  <th scope="row">
                    {f.url ? (
                      <a href={f.url} target="_blank" rel="noreferrer">
                        {f.filename}
                      </a>
                    ) : (
                      f.filename
                    )}
                  </th>
                  <td>{f.contentType}</td>
                  <td>{formatBytes(f.size)}</td>
                  <td>{new Date(f.createdAt).toLocaleString()}</td>
                  <td className="actions">
                    <button
                      type="button"
                      className="secondary danger"
                      onClick={() => setPending({ path: f.path, name: f.filename })}
                      disabled={action.busy}
                      aria-label={`Delete ${f.filename}`}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {files.data && (history.length > 0 || files.data.pagination.hasMore) && (
        <nav className="pager" aria-label="Pages">
          <button
            type="button"
            className="secondary"
            disabled={history.length === 0}
            onClick={() => (setCursor(history[history.length - 1]), setHistory(history.slice(0, -1)))}
          >
            Newer
          </button>
          <button
            type="button"
            className="secondary"
            disabled={!files.data.pagination.hasMore}
            onClick={() => (
              setHistory([...history, cursor]),
              setCursor(files.data!.pagination.nextCursor ?? undefined)
            )}
          >
            Older
          </button>
        </nav>
      )}
      <ConfirmDialog
        open={pending !== null}
        onOpenChange={(open) => !open && setPending(null)}
        title={`Delete ${pending?.name ?? 'the file'}?`}
        action="Delete file"
        onConfirm={() => pending && remove(pending.path, pending.name)}
      >
        <p>It is deleted permanently; links to it stop working.</p>
      </ConfirmDialog>
    </>
  );
}
