// Account settings: who is logged in, the password change (which ends every other session and
// revokes every access token) and the personal AI provider key, and the personal access tokens.
import { useState, type FormEvent } from 'react';
import { useQueryClient } from '@tanstack/react-query';
import { api, ApiFailure, call } from '../../api';
import { useSession } from '../../session';
import { ErrorBox, Field, Notice } from '../../components/ui';
import { useAction } from '../../hooks';
import { AiKeyForm } from '../../components/ai-key';
import { AccessTokens } from './access-tokens';
import { usePlanLabel } from '../../data/plans';

export function AccountPage() {
  const { developer, refresh } = useSession();
  const planLabel = usePlanLabel(developer?.plan);
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [done, setDone] = useState<string | null>(null);
  const queries = useQueryClient();
  const { busy, error, run } = useAction();
  const failure = error instanceof ApiFailure ? error : undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setDone(null);
    void run(async () => {
      const changed = await call(
        api.PUT('/api/user/me/password', { body: { currentPassword, newPassword } }),
      );
      setCurrent('');
      setNew('');
      setDone(`${changed.message}. Other sessions have been logged out.`);
      // The token list below shows the revocations.
      await queries.invalidateQueries({ queryKey: ['access-tokens'] });
    });
  };

  return (
    <main id="main" className="narrow">
      <h1>Account</h1>
      <dl className="facts">
        <dt>Email</dt>
        <dd>{developer?.email}</dd>
        <dt>Name</dt>
        <dd>{developer?.name ?? '—'}</dd>
        <dt>Plan</dt>
        <dd>{planLabel}</dd>
        {developer?.isOperator && (
          <>
            <dt>Role</dt>
            <dd>Operator of this installation</dd>
          </>
        )}
      </dl>
      <h2>Change password</h2>
      <form onSubmit={submit} noValidate>
        <Field
          label="Current password"
          required
          type="password"
          autoComplete="current-password"
          value={currentPassword}
          onChange={(e) => setCurrent(e.target.value)}
          error={failure?.forField('currentPassword')}
        />
        <Field
          label="New password"
          required
          type="password"
          autoComplete="new-password"
          hint="8 to 128 characters. Your other sessions will be logged out and every access token revoked."
          value={newPassword}
          onChange={(e) => setNew(e.target.value)}
          error={failure?.forField('newPassword')}
        />
        <ErrorBox error={error} />
        {done && <Notice>{done}</Notice>}
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : 'Change password'}
        </button>
      </form>
      {developer && (
        <AiKeyForm
          scope="account"
          hasKey={developer.hasAiProviderKey}
          save={async (aiProviderKey) => {
            const saved = await call(api.PUT('/api/user/me/byok', { body: { aiProviderKey } }));
            await refresh();
            return saved.data.hasAiProviderKey;
          }}
        >
          <p className="muted">
            Your key for the provider behind the AI tools (Query Builder, Collection Creator), used on every
            project of yours that has no project key. Requests on your own key are not counted against the
            plan’s monthly AI limits. Pro plan.
          </p>
        </AiKeyForm>
      )}
      <AccessTokens />
    </main>
  );
}
