// The actions on one end user (admins), in a Radix menu: edit, disable or enable, sign out
// everywhere, delete (confirmed, with or without the documents and files they own).
import { useState } from 'react';
import * as DropdownMenu from '@radix-ui/react-dropdown-menu';
import { errorText } from '../../api';
import { useEndUserActions, type ManagedUser } from '../../data/end-users';
import { ConfirmDialog } from '../../components/confirm';
import { EditUserDialog } from './edit-user';

interface Props {
  projectId: string;
  user: ManagedUser;
  onDone: (notice: { text: string; error?: boolean }) => void;
}

export function UserActions({ projectId, user, onDone }: Props) {
  const actions = useEndUserActions(projectId);
  const [dialog, setDialog] = useState<'edit' | 'delete' | undefined>();
  const [withDocuments, setWithDocuments] = useState(false);
  const id = String(user._id);
  const email = String(user.email);

  const run = <T,>(promise: Promise<T>, words: (result: T) => string) =>
    promise.then(
      (result) => onDone({ text: words(result) }),
      (err: unknown) => onDone({ text: errorText(err), error: true }),
    );

  const remove = () =>
    run(actions.remove.mutateAsync({ userId: id, documents: withDocuments }), (done) => {
      const erased = done.erased;
      if (!erased) return `Deleted ${email}.`;
      const documents = Object.values(erased.documents).reduce((a, b) => a + b, 0);
      return `Deleted ${email} with ${documents} document${documents === 1 ? '' : 's'} and ${erased.files} file${erased.files === 1 ? '' : 's'}.`;
    });

  return (
    <>
      <DropdownMenu.Root>
        <DropdownMenu.Trigger asChild>
          <button type="button" className="secondary" aria-label={`Actions for ${email}`}>
            Actions
          </button>
        </DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content className="menu" align="end" sideOffset={4}>
            <DropdownMenu.Item className="menu-item" onSelect={() => setDialog('edit')}>
              Edit…
            </DropdownMenu.Item>
            {user.disabled ? (
              <DropdownMenu.Item
                className="menu-item"
                onSelect={() => void run(actions.enable.mutateAsync(id), () => `Enabled ${email}.`)}
              >
                Enable
              </DropdownMenu.Item>
            ) : (
              <DropdownMenu.Item
                className="menu-item"
                onSelect={() =>
                  void run(
                    actions.disable.mutateAsync(id),
                    () => `Disabled ${email}: they cannot log in, and their sessions have ended.`,
                  )
                }
              >
                Disable
              </DropdownMenu.Item>
            )}
            <DropdownMenu.Item
              className="menu-item"
              onSelect={() =>
                void run(
                  actions.signOut.mutateAsync(id),
                  (n) => `Signed ${email} out everywhere (${n} session${n === 1 ? '' : 's'} ended).`,
                )
              }
            >
              Sign out everywhere
            </DropdownMenu.Item>
            <DropdownMenu.Separator className="menu-separator" />
            <DropdownMenu.Item className="menu-item danger" onSelect={() => setDialog('delete')}>
              Delete…
            </DropdownMenu.Item>
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
      <ConfirmDialog
        open={dialog === 'delete'}
        onOpenChange={(open) => {
          setDialog(open ? 'delete' : undefined);
          if (!open) setWithDocuments(false);
        }}
        title={`Delete ${email}?`}
        action="Delete end user"
        onConfirm={() => void remove()}
      >
        <p>The account is removed for good and signed out everywhere. This cannot be undone.</p>
        <label className="check">
          <input
            type="checkbox"
            checked={withDocuments}
            onChange={(e) => setWithDocuments(e.target.checked)}
          />
          Also erase the documents (in collections with row-level security) and files they own
        </label>
      </ConfirmDialog>
      {dialog === 'edit' && (
        <EditUserDialog
          projectId={projectId}
          user={user}
          onClose={(saved) => {
            setDialog(undefined);
            if (saved) onDone({ text: `Saved ${email}.` });
          }}
        />
      )}
    </>
  );
}
