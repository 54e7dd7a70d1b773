// Storage and mail settings of a project (admins). The project's own bucket and SMTP server are
// Pro features: the API answers why when the plan does not include them, and the page shows it.
import { useState, type FormEvent } from 'react';
import { api, ApiFailure, call, type Project } from '../api';
import { ErrorBox, Field, Notice, Progress } from '../components/ui';
import { useAction, useLoad } from '../hooks';

export function StorageSection({ project }: { project: Project }) {
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

export function MailSection({ project }: { project: Project }) {
  const params = { path: { projectId: project.id } };
  const mail = useLoad(
    async () => (await call(api.GET('/api/projects/{projectId}/mail', { params }))).data,
    [project.id],
  );
  const [smtp, setSmtp] = useState({ host: '', port: '587', username: '', password: '', from: '' });
  const action = useAction();
  const [notice, setNotice] = useState('');
  const failure = action.error instanceof ApiFailure ? action.error : undefined;
  const m = mail.value;

  const save = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const body = { ...smtp, port: Number(smtp.port) };
      mail.setValue((await call(api.PUT('/api/projects/{projectId}/mail/smtp', { params, body }))).data);
      setNotice('The SMTP server answered; mail now goes through it.');
    });
  };
  const remove = () =>
    action.run(async () => {
      mail.setValue((await call(api.DELETE('/api/projects/{projectId}/mail/smtp', { params }))).data);
      setNotice('Mail goes through the platform’s server again.');
    });
  const input = (key: keyof typeof smtp, label: string, type = 'text') => (
    <Field
      label={label}
      type={type}
      value={smtp[key]}
      onChange={(e) => setSmtp({ ...smtp, [key]: e.target.value })}
      error={failure?.forField(key)}
    />
  );

  return (
    <section className="card" aria-labelledby="mail-heading">
      <h2 id="mail-heading">Mail</h2>
      <ErrorBox error={mail.error} />
      {!m && mail.loading && <Progress label="Loading mail settings…" />}
      {m && (
        <>
          <p>
            {m.usage.used} of {m.usage.limit} mails sent in {m.usage.month}.{' '}
            {m.smtp
              ? `Sent through ${m.smtp.host}:${m.smtp.port} as ${m.smtp.from}.`
              : 'Sent through the platform’s server.'}
          </p>
          {m.smtp ? (
            <button type="button" className="secondary" onClick={() => void remove()}>
              Stop using my SMTP server
            </button>
          ) : (
            <details>
              <summary>Send through your own SMTP server{m.ownSmtpAllowed ? '' : ' (Pro plan)'}</summary>
              <form onSubmit={save} noValidate>
                {input('host', 'Host')}
                {input('port', 'Port', 'number')}
                {input('username', 'Username')}
                {input('password', 'Password', 'password')}
                {input('from', 'From address')}
                <button type="submit" disabled={action.busy}>
                  Verify and save
                </button>
              </form>
            </details>
          )}
        </>
      )}
      {action.busy && <Progress label="Checking the mail settings…" />}
      <ErrorBox error={action.error} />
      {notice && <Notice>{notice}</Notice>}
    </section>
  );
}
