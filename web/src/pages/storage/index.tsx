// Storage settings of a project (admins): end-user uploads, and the project's own S3-compatible
// bucket (a Pro feature: the API answers why when the plan does not include it).
import { useState, type FormEvent } from 'react';
import { api, ApiFailure, call, type Project } from '../../api';
import { ErrorBox, Field, Notice, Progress } from '../../components/ui';
import { useAction, useLoad } from '../../hooks';

import type { ProjectPageProps } from '../project-shell';

function StorageSection({ project }: { project: Project }) {
  const params = { path: { projectId: project.id } };
  const settings = useLoad(
    async () => (await call(api.GET('/api/projects/{projectId}/storage', { params }))).data,
    [project.id],
  );
  const [bucket, setBucket] = useState({
    endpoint: '',
    region: '',
    bucket: '',
    accessKeyId: '',
    secretAccessKey: '',
    publicUrlBase: '',
  });
  const [pathStyle, setPathStyle] = useState(false);
  const action = useAction();
  const [notice, setNotice] = useState('');
  const failure = action.error instanceof ApiFailure ? action.error : undefined;
  const s = settings.value;

  const toggle = (endUserUploads: boolean) =>
    action.run(async () => {
      settings.setValue(
        (await call(api.PATCH('/api/projects/{projectId}/storage', { params, body: { endUserUploads } })))
          .data,
      );
      setNotice('Storage settings saved.');
    });
  const connect = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const body = { ...bucket, publicUrlBase: bucket.publicUrlBase || undefined, forcePathStyle: pathStyle };
      settings.setValue((await call(api.PUT('/api/projects/{projectId}/storage', { params, body }))).data);
      setNotice('Your bucket is connected and verified.');
    });
  };
  const disconnect = () =>
    action.run(async () => {
      settings.setValue((await call(api.DELETE('/api/projects/{projectId}/storage', { params }))).data);
      setNotice('Back to the built-in storage.');
    });
  const input = (key: keyof typeof bucket, label: string, type = 'text') => (
    <Field
      label={label}
      type={type}
      value={bucket[key]}
      onChange={(e) => setBucket({ ...bucket, [key]: e.target.value })}
      error={failure?.forField(key)}
    />
  );

  return (
    <section className="card" aria-labelledby="storage-heading">
      <h2 id="storage-heading">Storage</h2>
      <ErrorBox error={settings.error} />
      {!s && settings.loading && <Progress label="Loading storage settings…" />}
      {s && (
        <>
          <p>
            Files are kept in{' '}
            {s.provider === 'external' ? `your bucket ${s.external?.bucket ?? ''}` : 'the built-in storage'}.
          </p>
          <label className="check">
            <input
              type="checkbox"
              checked={s.endUserUploads}
              onChange={(e) => void toggle(e.target.checked)}
            />
            End users may upload files (publishable key and access token)
          </label>
          {s.provider === 'external' ? (
            <button type="button" className="secondary" onClick={() => void disconnect()}>
              Use the built-in storage again
            </button>
          ) : (
            <details>
              <summary>
                Use your own S3-compatible bucket{s.externalStorageAllowed ? '' : ' (Pro plan)'}
              </summary>
              <form onSubmit={connect} noValidate>
                {input('endpoint', 'Endpoint (https://…)', 'url')}
                {input('region', 'Region')}
                {input('bucket', 'Bucket')}
                {input('accessKeyId', 'Access key id')}
                {input('secretAccessKey', 'Secret access key', 'password')}
                {input('publicUrlBase', 'Public URL base (optional)', 'url')}
                <label className="check">
                  <input
                    type="checkbox"
                    checked={pathStyle}
                    onChange={(e) => setPathStyle(e.target.checked)}
                  />
                  Path-style URLs (most S3-compatible servers other than AWS)
                </label>
                <button type="submit" disabled={action.busy}>
                  Verify and connect
                </button>
              </form>
            </details>
          )}
        </>
      )}
      {action.busy && <Progress label="Checking the storage settings…" />}
      <ErrorBox error={action.error} />
      {notice && <Notice>{notice}</Notice>}
    </section>
  );
}

export function StoragePage({ project }: ProjectPageProps) {
  return (
    <>
      <h1>Storage</h1>
      <StorageSection project={project} />
    </>
  );
}
