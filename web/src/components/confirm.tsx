// The one way a destructive action asks first: a Radix alert dialog of the app (focus kept inside,
// Escape cancels), optionally asking for the thing's name to be typed. Never window.confirm/prompt.
import { useState, type ReactNode } from 'react';
import * as AlertDialog from '@radix-ui/react-alert-dialog';

interface DialogProps {
  title: string;
  children: ReactNode;
  /** The words of the confirming button ("Delete project"). */
  action: string;
  onConfirm: () => void;
  /** When set, the confirming button waits until this text is typed exactly. */
  typeToConfirm?: string;
  /** A confirming button that destroys nothing (creating an index) is not styled as danger. */
  safe?: boolean;
}

/** A confirmation opened by the caller (from a menu item, say): `open` and `onOpenChange` are its. */
export function ConfirmDialog({
  open,
  onOpenChange,
  title,
  children,
  action,
  onConfirm,
  typeToConfirm,
  trigger,
  safe,
}: DialogProps & { open: boolean; onOpenChange: (open: boolean) => void; trigger?: ReactNode }) {
  const [typed, setTyped] = useState('');
  const ready = typeToConfirm === undefined || typed === typeToConfirm;
  return (
    <AlertDialog.Root
      open={open}
      onOpenChange={(next) => {
        onOpenChange(next);
        if (!next) setTyped('');
      }}
    >
      {trigger && <AlertDialog.Trigger asChild>{trigger}</AlertDialog.Trigger>}
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content className="dialog">
          <AlertDialog.Title>{title}</AlertDialog.Title>
          <AlertDialog.Description asChild>
            <div>{children}</div>
          </AlertDialog.Description>
          {typeToConfirm !== undefined && (
            <div className="field">
              <label htmlFor="confirm-typed">
                Type <strong>{typeToConfirm}</strong> to confirm
              </label>
              <input
                id="confirm-typed"
                autoComplete="off"
                value={typed}
                onChange={(e) => setTyped(e.target.value)}
              />
            </div>
          )}
          <div className="dialog-actions">
            <AlertDialog.Cancel asChild>
              <button type="button" className="secondary">
                Cancel
              </button>
            </AlertDialog.Cancel>
            <AlertDialog.Action asChild>
              <button
                type="button"
                className={safe ? undefined : 'danger'}
                disabled={!ready}
                onClick={onConfirm}
              >
                {action}
              </button>
            </AlertDialog.Action>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}

/** A confirmation opened by its own button. */
export function Confirm({ trigger, ...props }: DialogProps & { trigger: ReactNode }) {
  const [open, setOpen] = useState(false);
  return <ConfirmDialog open={open} onOpenChange={setOpen} trigger={trigger} {...props} />;
}

/** The Delete button of a thing's page, asking first: "Delete this webhook?", "Delete webhook". */
export function DeleteConfirm({
  thing,
  onConfirm,
  children,
}: {
  thing: string;
  onConfirm: () => void;
  children: ReactNode;
}) {
  return (
    <Confirm
      title={`Delete this ${thing}?`}
      action={`Delete ${thing}`}
      onConfirm={onConfirm}
      trigger={
        <button type="button" className="danger">
          Delete
        </button>
      }
    >
      {children}
    </Confirm>
  );
}
