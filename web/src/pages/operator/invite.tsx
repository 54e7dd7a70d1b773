// The Developers page's invitations: the operator types an address (and may pick the plan the
// account gets); the address is mailed a sign-up link that opens the dashboard's sign-up with it
// filled in. Pending invitations are listed, each with a revoke.
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { ErrorBox, Field, NoticeLine } from '../../components/ui';
import { ConfirmDialog } from '../../components/confirm';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';
import { errorText } from '../../api';
import { usePlans } from '../../data/plans';
import {
  useDeveloperInvitationChanges,
  useDeveloperInvitations,
  type DeveloperInvitation,
} from '../../data/developer-invitations';

interface Values {
  email: string;
  plan: string;
}

const bodyOf = (v: Values) => ({ email: v.email.trim(), ...(v.plan ? { plan: v.plan } : {}) });

export function InviteDevelopers() {
  const plans = usePlans();
  const invitations = useDeveloperInvitations();
  const { invite, revoke } = useDeveloperInvitationChanges();
  const [notice, setNotice] = useState<{ text: string; error?: boolean }>();
  const [revoking, setRevoking] = useState<DeveloperInvitation | null>(null);
  const form = useForm<Values>({
    defaultValues: { email: '', plan: '' },
    resolver: apiResolver<Values>('inviteDeveloper', bodyOf, (path) => path.replace(/^body\./, '')),
  });
  const { errors, isSubmitting } = form.formState;
  const labelOf = (plan: string | null) =>
    plan ? (plans.data?.plans.find((p) => p.name === plan)?.label ?? plan) : 'default plan';

  const submit = form.handleSubmit(async (values) => {
    setNotice(undefined);
    try {
      const res = await invite.mutateAsync(bodyOf(values));
      setNotice({ text: `${res.message}. The link works once, for 7 days.` });
      form.reset();
    } catch (err) {
      showFailure(form, err, (path) => {
        const field = path.replace(/^body\./, '');
        return field === 'email' || field === 'plan' ? field : undefined;
      });
    }
  });

  return (
    <section className="card" aria-labelledby="invite-developer">
      <h2 id="invite-developer">Invite a developer</h2>
      <p className="muted">
        We mail the address a sign-up link that works once, for 7 days; it opens the sign-up with the address
        filled in, and the account gets the plan chosen here.
      </p>
      <form onSubmit={submit} onChange={() => form.clearErrors('root')} className="inline" noValidate>
        <Field
          label="Email"
          type="email"
          required
          {...form.register('email')}
          error={errors.email?.message}
        />
        <div className="field">
          <label htmlFor="invite-plan">Plan</label>
          <select id="invite-plan" {...form.register('plan')}>
            <option value="">Default plan{plans.data ? ` (${labelOf(plans.data.defaultPlan)})` : ''}</option>
            {plans.data?.plans.map((p) => (
              <option key={p.name} value={p.name}>
                {p.label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Sending…' : 'Send invitation'}
        </button>
      </form>
      <FormMessage errors={errors} />
      <NoticeLine notice={notice} />
      <ErrorBox error={invitations.error} />
      {invitations.data && invitations.data.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Pending invitations">
          <table>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Plan</th>
                <th scope="col">Expires</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {invitations.data.map((i) => (
                <tr key={i.id}>
                  <th scope="row">{i.email}</th>
                  <td>{labelOf(i.plan)}</td>
                  <td>{new Date(i.expiresAt).toLocaleDateString()}</td>
                  <td className="actions">
                    <button type="button" className="secondary danger" onClick={() => setRevoking(i)}>
                      Revoke<span className="sr-only"> the invitation of {i.email}</span>
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {invitations.data?.length === 0 && <p className="muted">No pending invitations.</p>}
      <ConfirmDialog
        open={revoking !== null}
        onOpenChange={(open) => !open && setRevoking(null)}
        title={`Revoke the invitation of ${revoking?.email ?? ''}?`}
        action="Revoke invitation"
        onConfirm={() =>
          revoking &&
          revoke.mutate(revoking.id, {
            onSuccess: () => setNotice({ text: `The invitation of ${revoking.email} is revoked.` }),
            onError: (err) => setNotice({ text: errorText(err), error: true }),
          })
        }
      >
        <p>The link in their mail stops working. You can invite the address again later.</p>
      </ConfirmDialog>
    </section>
  );
}
