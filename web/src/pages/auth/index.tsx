// Sign up and log in. The form is checked with the API's own schema before it is sent (every
// problem at once, under its field); the API's refusals (wrong credentials, a lockout with the
// time to wait) are shown once, where they belong. A sign-up ends with "check your mail": the
// account exists once the mailed link is opened (./confirm.tsx).
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { api, call } from '../../api';
import { useSetMe } from '../../data/account';
import { Field, Link, Notice } from '../../components/ui';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';
import { askedPage, invitedEmail, rememberForSignup } from '../../next-page';

interface Values {
  email: string;
  password: string;
  name: string;
}

const bodyOf = (v: Values, signup: boolean) => ({
  email: v.email.trim(),
  password: v.password,
  ...(signup && v.name.trim() ? { name: v.name.trim() } : {}),
});

export function AuthPage({ mode, notice }: { mode: 'login' | 'signup'; notice?: string }) {
  const signup = mode === 'signup';
  const setMe = useSetMe();
  const form = useForm<Values>({
    defaultValues: { email: invitedEmail(), password: '', name: '' },
    resolver: apiResolver<Values>(signup ? 'signUpDeveloper' : 'logInDeveloper', (v) => bodyOf(v, signup)),
  });
  const { errors, isSubmitting } = form.formState;
  const [mailedTo, setMailedTo] = useState<string>();
  const [delivery, setDelivery] = useState<'smtp' | 'outbox'>('smtp');

  const submit = form.handleSubmit(async (values) => {
    try {
      const body = bodyOf(values, signup);
      if (signup) {
        const { email, delivery } = (await call(api.POST('/api/auth/signup', { body }))).data;
        rememberForSignup(email);
        setDelivery(delivery);
        setMailedTo(email);
        return;
      }
      setMe((await call(api.POST('/api/auth/login', { body }))).data.developer);
    } catch (err) {
      showFailure(form, err, signup ? ['email', 'password', 'name'] : []);
    }
  });

  if (signup && mailedTo) {
    return (
      <main id="main" className="narrow">
        <h1>Check your mail</h1>
        <Notice>
          {delivery === 'outbox' ? 'We wrote a message to' : 'We sent a message to'} {mailedTo}. Open its link
          within 24 hours and type your password again to finish creating your account.
          {askedPage() ? ' Its link then brings you back to the page you asked for.' : ''}
        </Notice>
        {delivery === 'outbox' && (
          <p className="warning">
            This server has no mail server configured (<code>SMTP_URL</code> is not set), so the message was
            not sent: it was written as a file to the server’s outbox folder (<code>MAIL_OUTBOX_DIR</code>,{' '}
            <code>.data/outbox</code> unless set otherwise). Whoever runs the server can open it there and
            follow its link.
          </p>
        )}
        <p className="muted">
          {delivery === 'outbox' ? 'Wrong address? You can ' : 'Nothing came? Check the spam folder, or '}
          <button type="button" className="link" onClick={() => setMailedTo(undefined)}>
            sign up again
          </button>
          .
        </p>
      </main>
    );
  }

  return (
    <main id="main" className="narrow">
      <h1>{signup ? 'Create your account' : 'Log in'}</h1>
      {notice && <Notice>{notice}</Notice>}
      <form onSubmit={submit} onChange={() => form.clearErrors('root')} noValidate>
        {signup && (
          <Field
            label="Name (optional)"
            autoComplete="name"
            {...form.register('name')}
            error={errors.name?.message}
          />
        )}
        <Field
          label="Email"
          type="email"
          autoComplete="email"
          required
          {...form.register('email')}
          error={errors.email?.message}
        />
        <Field
          label="Password"
          type="password"
          autoComplete={signup ? 'new-password' : 'current-password'}
          required
          hint={signup ? '8 to 128 characters.' : undefined}
          {...form.register('password')}
          error={errors.password?.message}
        />
        <FormMessage errors={errors} />
        <button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Please wait…' : signup ? 'Sign up' : 'Log in'}
        </button>
      </form>
      <p>
        {signup ? (
          <>
            Already have an account? <Link to={`/login${location.search}`}>Log in</Link>
          </>
        ) : (
          <>
            New here? <Link to={`/signup${location.search}`}>Create an account</Link>
          </>
        )}
      </p>
    </main>
  );
}
