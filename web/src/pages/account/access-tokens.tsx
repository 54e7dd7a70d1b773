// Personal access tokens on the Account page: create one (name, scope, expiry, optionally some
// projects, and the current password: a session alone cannot mint one), see it once with a copy
// button until dismissed, list them with last use, revoke.
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';
import { CopyButton, ErrorBox, Field, FieldError } from '../../components/ui';
import { Confirm } from '../../components/confirm';
import { useProjects } from '../../data/projects';
import {
  useAccessTokens,
  useCreateAccessToken,
  useRevokeAccessToken,
  type AccessToken,
  type NewAccessToken,
} from '../../data/access-tokens';

const LIFETIMES = [
  { days: 7, label: '7 days' },
  { days: 30, label: '30 days' },
  { days: 90, label: '90 days' },
  { days: 365, label: 'One year' },
] as const;

interface Values {
  password: string;
  name: string;
  scope: 'read' | 'write';
  days: string;
  projectIds: string[];
}

const bodyOf = (v: Values): NewAccessToken => ({
  password: v.password,
  name: v.name.trim(),
  scope: v.scope,
  expiresAt: new Date(Date.now() + Number(v.days) * 86_400_000).toISOString(),
  ...(v.projectIds.length > 0 ? { projectIds: v.projectIds } : {}),
});
const fieldOf = (path: string) => (path === 'expiresAt' ? 'days' : path.split('.')[0]);
const day = (iso: string | null) => (iso ? new Date(iso).toLocaleDateString() : '—');

function status(token: AccessToken): string {
  if (token.revokedAt) return `Revoked ${day(token.revokedAt)}`;
  if (new Date(token.expiresAt).getTime() <= Date.now()) return `Expired ${day(token.expiresAt)}`;
  return `Expires ${day(token.expiresAt)}`;
}

export function AccessTokens() {
  const tokens = useAccessTokens();
  const projects = useProjects();
  const create = useCreateAccessToken();
  const revoke = useRevokeAccessToken();
  const [shown, setShown] = useState<{ name: string; token: string } | null>(null);
  const defaults: Values = { password: '', name: '', scope: 'read', days: '30', projectIds: [] };
  const form = useForm<Values>({
    defaultValues: defaults,
    resolver: apiResolver<Values>('createAccessToken', bodyOf, fieldOf),
  });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async (values) => {
    try {
      const created = await create.mutateAsync(bodyOf(values));
      setShown({ name: created.accessToken.name, token: created.token });
      form.reset(defaults);
    } catch (err) {
      showFailure(form, err, fieldOf);
    }
  });

  return (
    <section aria-labelledby="tokens-title">
      <h2 id="tokens-title">Personal access tokens</h2>
      <p className="muted">
        For scripts, CI and the command-line tool: send a token as <code>Authorization: Bearer</code> on the
        dashboard API. It acts as you in your projects (or only the ones you choose) but cannot change your
        account. A read token can only read. Creating one asks for your password, and we mail you about it;
        changing your password revokes every token.
      </p>
      {shown && (
        <div className="keys" data-testid="new-access-token">
          <p className="warning" role="alert">
            Copy the token “{shown.name}” now: it is shown only this once.
          </p>
          <div className="key-value">
            <input readOnly value={shown.token} aria-label={`Access token ${shown.name}`} />
            <CopyButton text={shown.token} label="Copy token" />
          </div>
          <button type="button" className="secondary" onClick={() => setShown(null)}>
            I have copied it
          </button>
        </div>
      )}
      <form onSubmit={submit} onChange={() => form.clearErrors('root')} noValidate>
        <Field
          id="token-name"
          label="Name"
          required
          placeholder="CI deploy"
          {...form.register('name')}
          error={errors.name?.message}
        />
        <div className="field">
          <label htmlFor="token-scope">Scope</label>
          <select id="token-scope" {...form.register('scope')}>
            <option value="read">Read only</option>
            <option value="write">Read and write</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="token-days">Expires in</label>
          <select id="token-days" {...form.register('days')}>
            {LIFETIMES.map((l) => (
              <option key={l.days} value={String(l.days)}>
                {l.label}
              </option>
            ))}
          </select>
          <FieldError message={errors.days?.message} />
        </div>
        {(projects.data?.length ?? 0) > 0 && (
          <fieldset>
            <legend>Projects (none ticked: every project of yours)</legend>
            {projects.data!.map((p) => (
              <label className="check" key={p.id}>
                <input type="checkbox" value={p.id} {...form.register('projectIds')} />
                {p.name}
              </label>
            ))}
            <FieldError message={errors.projectIds?.message} />
          </fieldset>
        )}
        <Field
          id="token-password"
          label="Your password"
          required
          type="password"
          autoComplete="current-password"
          hint="The password you log in with: a token is as good as it for scripts."
          {...form.register('password')}
          error={errors.password?.message}
        />
        <FormMessage errors={errors} />
        <button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Creating…' : 'Create token'}
        </button>
      </form>
      <h3>Your tokens</h3>
      <ErrorBox error={tokens.error ?? revoke.error} />
      {tokens.data && tokens.data.length === 0 && <p className="muted">No tokens yet.</p>}
      {tokens.data && tokens.data.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Your access tokens">
          <table>
            <caption className="sr-only">Your access tokens</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Token</th>
                <th scope="col">Scope</th>
                <th scope="col">Projects</th>
                <th scope="col">Last used</th>
                <th scope="col">Status</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {tokens.data.map((t) => (
                <tr key={t.id}>
                  <td>{t.name}</td>
                  <td>
                    <code>{t.prefix}…</code>
                  </td>
                  <td>{t.scope === 'read' ? 'Read only' : 'Read and write'}</td>
                  <td>
                    {t.projectIds === null
                      ? 'All'
                      : t.projectIds
                          .map((id) => projects.data?.find((p) => p.id === id)?.name ?? id)
                          .join(', ')}
                  </td>
                  <td>{day(t.lastUsedAt)}</td>
                  <td>{status(t)}</td>
                  <td>
                    {!t.revokedAt && (
                      <Confirm
                        title={`Revoke “${t.name}”?`}
                        action="Revoke token"
                        onConfirm={() => revoke.mutate(t.id)}
                        trigger={
                          <button type="button" className="secondary">
                            Revoke
                          </button>
                        }
                      >
                        <p>Scripts using it are refused from their next request.</p>
                      </Confirm>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
