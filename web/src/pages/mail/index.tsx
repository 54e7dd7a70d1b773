// Mail of a project (admins): the month's count against the plan, the templates with a live
// preview (templates.tsx), and the project's own SMTP server (smtp.tsx).
import { useMailSettings } from '../../data/mail';
import { ErrorBox, Progress } from '../../components/ui';
import { SmtpSection } from './smtp';
import { TemplatesSection } from './templates';
import type { ProjectPageProps } from '../project-shell';

export function MailPage({ project }: ProjectPageProps) {
  const mail = useMailSettings(project.id);
  const m = mail.data;
  return (
    <>
      <h1>Mail</h1>
      <ErrorBox error={mail.error} />
      {mail.isPending && <Progress label="Loading mail settings…" />}
      {m && (
        <>
          <p data-testid="mail-usage">
            {m.usage.used} of {m.usage.limit} mails sent in {m.usage.month}
            {m.smtp ? ' (your SMTP server’s are not counted).' : '.'}
            {!m.smtp &&
              m.delivery === 'outbox' &&
              ' This installation keeps mail in an outbox instead of sending it.'}
          </p>
          <TemplatesSection projectId={project.id} />
          <SmtpSection projectId={project.id} smtp={m.smtp} allowed={m.ownSmtpAllowed} />
        </>
      )}
    </>
  );
}
