// The project's own SMTP server (a Pro feature): verified by the API before it is saved; the
// password is never shown again.
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useMailActions } from '../../data/mail';
import { ErrorBox, Field, Notice, Progress } from '../../components/ui';
import { Confirm } from '../../components/confirm';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';
import { PlanNeeded } from '../../components/plan-needed';

interface Values {
  host: string;
  port: string;
  username: string;
  password: string;
  from: string;
}

const bodyOf = (v: Values) => ({
  host: v.host.trim(),
  port: v.port.trim() === '' ? ('' as unknown as number) : Number(v.port),
  username: v.username.trim(),
  password: v.password,
  from: v.from.trim(),
});

interface Props {
  projectId: string;
  smtp: { host: string; port: number; from: string; username: string } | null;
  allowed: boolean;
}

export function SmtpSection({ projectId, smtp, allowed }: Props) {
  const { setSmtp, removeSmtp } = useMailActions(projectId);
  const [notice, setNotice] = useState('');
  const form = useForm<Values>({
    defaultValues: { host: '', port: '587', username: '', password: '', from: '' },
    resolver: apiResolver<Values>('setMailSmtp', bodyOf),
  });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    setNotice('');
    try {
      await setSmtp.mutateAsync(bodyOf(values));
      form.reset();
      setNotice('The SMTP server answered; mail now goes through it.');
    } catch (err) {
      showFailure(form, err, ['host', 'port', 'username', 'password', 'from']);
    }
  });

  return (
    <section className="card" aria-labelledby="smtp-heading">
      <h2 id="smtp-heading">SMTP server</h2>
      {notice && <Notice>{notice}</Notice>}
      {smtp ? (
        <>
          <p>
            Mail goes through <strong>{`${smtp.host}:${smtp.port}`}</strong> as {smtp.from} (user{' '}
            {smtp.username}).
          </p>
          <Confirm
            title="Stop using your SMTP server?"
            action="Stop using it"
            onConfirm={() =>
              removeSmtp.mutate(undefined, {
                onSuccess: () => setNotice('Mail goes through the platform’s server again.'),
              })
            }
            trigger={
              <button type="button" className="secondary">
                Stop using my SMTP server
              </button>
            }
          >
            <p>Mail goes through the platform’s server again, counted against the plan’s monthly limit.</p>
          </Confirm>
          <ErrorBox error={removeSmtp.error} />
        </>
      ) : (
        <>
          <p>Mail goes through the platform’s server.</p>
          {!allowed && <PlanNeeded what="Your own SMTP server" />}
          {allowed && (
            <form onSubmit={submit} onChange={() => form.clearErrors('root')} noValidate>
              <Field
                label="Host"
                placeholder="smtp.example.com"
                {...form.register('host')}
                error={errors.host?.message}
              />
              <Field
                label="Port"
                inputMode="numeric"
                {...form.register('port')}
                error={errors.port?.message}
              />
              <Field label="Username" {...form.register('username')} error={errors.username?.message} />
              <Field
                label="Password"
                type="password"
                autoComplete="off"
                {...form.register('password')}
                error={errors.password?.message}
              />
              <Field
                label="From address"
                placeholder="Shop <no-reply@shop.example.com>"
                {...form.register('from')}
                error={errors.from?.message}
              />
              <FormMessage errors={errors} />
              {isSubmitting && <Progress label="Connecting to the SMTP server…" />}
              <button type="submit" disabled={isSubmitting}>
                Verify and save
              </button>
            </form>
          )}
        </>
      )}
    </section>
  );
}
