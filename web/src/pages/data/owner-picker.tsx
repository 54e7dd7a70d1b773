// The owner of a document in a collection under private RLS: an end user of the project, found
// by a text in their email or name. Without one, the page warns that no end user can read it.
import * as Popover from '@radix-ui/react-popover';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { api, ApiFailure, call, errorText } from '../../api';

interface Props {
  projectId: string;
  ownerField: string;
  value: string;
  onChange: (userId: string) => void;
}

export function OwnerPicker({ projectId, ownerField, value, onChange }: Props) {
  const [open, setOpen] = useState(false);
  const [text, setText] = useState('');
  const searchId = useId();
  const users = useQuery({
    queryKey: ['end-users', projectId, text.trim()],
    enabled: open,
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/users', {
            params: { path: { projectId }, query: { search: text.trim() || undefined, limit: 10 } },
            signal,
          }),
        )
      ).data,
  });
  const missing = users.error instanceof ApiFailure && users.error.code === 'USERS_COLLECTION_MISSING';
  const list = Array.isArray(users.data) ? users.data : [];
  return (
    <div className="field owner-picker">
      <span className="label" id={`${searchId}-label`}>
        Owner (end user, stored in “{ownerField}”)
      </span>
      <div className="row">
        <Popover.Root open={open} onOpenChange={setOpen}>
          <Popover.Trigger asChild>
            <button type="button" className="secondary" aria-describedby={`${searchId}-label`}>
              {value ? 'Change owner' : 'Choose an owner'}
            </button>
          </Popover.Trigger>
          <Popover.Portal>
            <Popover.Content className="popover" align="start" sideOffset={4} aria-label="Choose the owner">
              <label htmlFor={searchId}>Email or name contains</label>
              <input id={searchId} value={text} autoFocus onChange={(e) => setText(e.target.value)} />
              {users.isFetching && <p className="muted">Searching…</p>}
              {missing && <p className="muted">This project has no end users yet.</p>}
              {users.isError && !missing && <p className="field-error">{errorText(users.error)}</p>}
              {users.isSuccess && list.length === 0 && <p className="muted">No end user matches.</p>}
              <ul aria-label="End users">
                {list.map((u) => (
                  <li key={String(u._id)}>
                    <button
                      type="button"
                      className="link"
                      onClick={() => {
                        onChange(String(u._id));
                        setOpen(false);
                      }}
                    >
                      {u.email} <span className="mono muted">{String(u._id)}</span>
                    </button>
                  </li>
                ))}
              </ul>
            </Popover.Content>
          </Popover.Portal>
        </Popover.Root>
        {value && <span className="mono">{value}</span>}
      </div>
      {!value && (
        <p className="warning" role="status">
          No owner chosen: this collection is private, so no end user will be able to read this document (only
          project members and the secret key).
        </p>
      )}
    </div>
  );
}
