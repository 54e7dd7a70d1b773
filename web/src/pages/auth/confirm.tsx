// The page a sign-up mail links to (`/signup/confirm?token=...`): the password chosen at sign-up,
// typed again, creates the account and opens the first session (the shell then shows the
// projects). Whoever started a sign-up with another person's address cannot finish it for them.
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { api, call } from '../../api';
import { useSetMe } from '../../data/account';
import { Field, Link } from '../../components/ui';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';

export function ConfirmSignupPage() {
  const setMe = useSetMe();
  const [token] = useState(() => new URLSearchParams(location.search).get('token') ?? '');
  const form = useForm<{ password: string }>({
    defaultValues: { password: '' },
    resolver: apiResolver<{ password: string }>('confirmDeveloperSignup', (v) => ({ token, ...v })),
  });
  const { errors, isSubmitting } = form.formState;

  const submit = form.handleSubmit(async ({ password }) => {
    try {
      const done = await call(api.POST('/api/auth/signup/confirm', { body: { token, password } }));
      setMe(done.data.developer);
    } catch (err) {
      showFailure(form, err, []);
    }
  });

  return (
    <main id="main" className="narrow">
      <h1>Finish creating your account</h1>
      {!token ? (
        <div className="error" role="alert">
          This address has no confirmation token. Open the link of the sign-up mail again.
        </div>
      ) : (
        <form onSubmit={submit} onChange={() => form.clearErrors('root')} noValidate>
          <p>Type the password you chose when you signed up.</p>
          <Field
            label="Password"
            required
            type="password"
            autoComplete="current-password"
            {...form.register('password')}
            error={errors.password?.message}
          />
          <FormMessage errors={errors} />
          <button type="submit" disabled={isSubmitting}>
            {isSubmitting ? 'Please wait…' : 'Create my account'}
          </button>
        </form>
      )}
      <p>
        Already confirmed? <Link to="/login">Log in</Link>
      </p>
    </main>
  );
}
