// The page an invitation mail links to (`/invitations/accept?token=...`): the logged-in developer
// accepts with one button and goes to the project. A visitor who is not logged in comes back here
// after log-in, or after the sign-up's confirmation mail (the shell keeps the address in `next`,
// and the sign-up form keeps it for the confirmation: next-page.ts).
import { useState } from 'react';
import { errorText } from '../../api';
import { useAcceptInvitation } from '../../data/members';
import { useSession } from '../../session';
import { Link, Notice } from '../../components/ui';

export function AcceptInvitationPage() {
  const { developer } = useSession();
  const [token] = useState(() => new URLSearchParams(location.search).get('token') ?? '');
  const accept = useAcceptInvitation();
  const joined = accept.data?.data.project;

  return (
    <main id="main" className="narrow">
      <h1>Project invitation</h1>
      {!token ? (
        <div className="error" role="alert">
          This address has no invitation token. Open the link of the invitation mail again.
        </div>
      ) : joined ? (
        <>
          <Notice>{accept.data?.message}</Notice>
          <p>
            <Link to={`/projects/${joined.id}`}>Open {joined.name}</Link>
          </p>
        </>
      ) : (
        <>
          <p>
            You are logged in as <strong>{developer?.email}</strong>. The invitation must have been sent to
            this address; if it was sent to another one, log out and log in (or sign up) with that address,
            then open the link again.
          </p>
          {accept.error ? (
            <div className="error" role="alert">
              {errorText(accept.error)}
            </div>
          ) : null}
          <button type="button" disabled={accept.isPending} onClick={() => accept.mutate(token)}>
            {accept.isPending ? 'Please wait…' : 'Accept the invitation'}
          </button>
        </>
      )}
    </main>
  );
}
