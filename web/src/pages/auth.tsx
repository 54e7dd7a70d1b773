// Sign up and log in. The API's messages (a taken email, a short password, too many attempts)
// are shown as they come, next to the field they name.
import { useState, type FormEvent } from 'react';
import { api, ApiFailure, call } from '../api';
import { useSession } from '../session';
import { ErrorBox, Field, Link } from '../components/ui';
import { useAction } from '../hooks';

export function AuthPage({ mode }: { mode: 'login' | 'signup' }) {
  const { refresh } = useSession();
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [name, setName] = useState('');
  const { busy, error, run } = useAction();
  const failure = error instanceof ApiFailure ? error : undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void run(async () => {
      if (mode === 'signup') {
        await call(api.POST('/api/auth/signup', { body: { email, password, ...(name ? { name } : {}) } }));
      } else {
        await call(api.POST('/api/auth/login', { body: { email, password } }));
      }
      await refresh();
    });
  };

  const signup = mode === 'signup';
  return (
    <main id="main" className="narrow">
      <h1>{signup ? 'Create your account' : 'Log in'}</h1>
      <form onSubmit={submit} noValidate>
        {signup && (
          <Field
            label="Name (optional)"
            value={name}
            onChange={(e) => setName(e.target.value)}
            autoComplete="name"
          />
        )}
        <Field
          label="Email"
          type="email"
          required
          autoComplete="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          error={failure?.forField('email')}
        />
        <Field
          label="Password"
          type="password"
          required
          minLength={signup ? 8 : undefined}
          autoComplete={signup ? 'new-password' : 'current-password'}
          hint={signup ? '8 to 128 characters.' : undefined}
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={failure?.forField('password')}
        />
        <ErrorBox error={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Please wait…' : signup ? 'Sign up' : 'Log in'}
        </button>
      </form>
      <p>
        {signup ? (
          <>
            Already have an account? <Link to="/login">Log in</Link>
          </>
        ) : (
          <>
            New here? <Link to="/signup">Create an account</Link>
          </>
        )}
      </p>
    </main>
  );
}
