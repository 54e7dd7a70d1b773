// Mail of a project (admins): the month's count, and the project's own SMTP server (a Pro
// feature: the API answers why when the plan does not include it).
import { useState, type FormEvent } from 'react';
import { api, ApiFailure, call, type Project } from '../../api';
import { ErrorBox, Field, Notice, Progress } from '../../components/ui';
import { useAction, useLoad } from '../../hooks';

import type { ProjectPageProps } from '../project-shell';

function MailSection({ project }: { project: Project }) {
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

export function MailPage({ project }: ProjectPageProps) {
  return (
    <>
      <h1>Mail</h1>
      <MailSection project={project} />
    </>
  );
}
