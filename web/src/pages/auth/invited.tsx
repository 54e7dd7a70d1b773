// The sign-up an operator's invitation links to (`/signup?invitation=...&email=...`): the invited
// address is filled in and fixed (the account is made for it: the mailed link proves it), a
// password and a name are chosen, and the account exists at once, on the plan the operator chose.
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { api, call } from '../../api';
import { useSetMe } from '../../data/account';
import { Field, Link, Notice } from '../../components/ui';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';

interface Values {
  password: string;
  name: string;
}

export function InvitedSignupPage() {
  const setMe = useSetMe();
  const [{ token, email }] = useState(() => {
    const query = new URLSearchParams(location.search);
    return { token: query.get('invitation') ?? '', email: query.get('email')?.trim() ?? '' };
  });
  const bodyOf = (v: Values) => ({
    token,
    password: v.password,
    ...(v.name.trim() ? { name: v.name.trim() } : {}),
  });
  const form = useForm<Values>({
    defaultValues: { password: '', name: '' },
    resolver: apiResolver<Values>('signUpByInvitation', bodyOf, (path) => path.replace(/^body\./, '')),
  });
  const { errors, isSubmitting } = form.formState;

  const submit = form.handleSubmit(async (values) => {
    try {
      const done = await call(api.POST('/api/auth/signup/invitation', { body: bodyOf(values) }));
      setMe(done.data.developer);
    } catch (err) {
      showFailure(form, err, (path) => {
        const field = path.replace(/^body\./, '');
        return field === 'password' || field === 'name' ? field : undefined;
      });
    }
  });

  return (
    <main id="main" className="narrow">
      <h1>Create your account</h1>
      <Notice>
        You were invited to this installation{email ? ` as ${email}` : ''}. Choose a password to create your
        account; no confirmation mail is needed.
      </Notice>
      <form onSubmit={submit} onChange={() => form.clearErrors('root')} noValidate>
        <Field
          label="Name (optional)"
          autoComplete="name"
          {...form.register('name')}
          error={errors.name?.message}
        />
        <Field
          label="Email"
          type="email"
          autoComplete="email"
          value={email}
          readOnly
          hint="The invited address: the account is made for it."
        />
        <Field
          label="Password"
          type="password"
          autoComplete="new-password"
          required
          hint="8 to 128 characters."
          {...form.register('password')}
          error={errors.password?.message}
        />
        <FormMessage errors={errors} />
        <button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Please wait…' : 'Create my account'}
        </button>
      </form>
      <p>
        Already have an account? <Link to="/login">Log in</Link>. Another address?{' '}
        {/* A page load: the sign-up page is the same path without the invitation. */}
        <a href="/signup">Sign up without the invitation</a>.
      </p>
    </main>
  );
}
