// A project without a `users` collection: one click makes the one end-user sign-in needs, as
// PocketBase and Supabase ship it, from the server's own definition (createUsersCollection);
// fields can be added later on the collection's page. Members are told to ask an admin.
import { useQueryClient } from '@tanstack/react-query';
import { api, call } from '../../api';
import { ErrorBox } from '../../components/ui';
import { useAction } from '../../hooks';

export function CreateUsersCollection({ projectId, admin }: { projectId: string; admin: boolean }) {
  const client = useQueryClient();
  const { busy, error, run } = useAction();
  const create = () =>
    void run(async () => {
      await call(api.POST('/api/projects/{projectId}/users-collection', { params: { path: { projectId } } }));
      await client.invalidateQueries({ queryKey: ['collections', projectId] });
      await client.invalidateQueries({ queryKey: ['end-users', projectId] });
    });
  return (
    <>
      <h1>End users</h1>
      <p>
        This project has no <code>users</code> collection yet. Until it has one, your app cannot sign end
        users up (the API answers <code>USERS_COLLECTION_MISSING</code>).
      </p>
      {admin ? (
        <>
          <p>
            Create it with the fields sign-in needs: <code>email</code> (required, unique),{' '}
            <code>password</code> (required, stored hashed) and <code>name</code>. You can add fields later.
          </p>
          <ErrorBox error={error} />
          <button type="button" disabled={busy} onClick={create}>
            {busy ? 'Creating…' : 'Create the users collection'}
          </button>
        </>
      ) : (
        <p>Only admins can create it: ask an admin of the project.</p>
      )}
    </>
  );
}
