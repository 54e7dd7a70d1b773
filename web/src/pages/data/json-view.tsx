// A document as JSON, in a dialog (Radix: focus kept inside, Escape closes, focus returns).
import * as Dialog from '@radix-ui/react-dialog';
import type { ApiDocument } from '../../api';
import { CopyButton } from '../../components/ui';

export function JsonView({ doc, onClose }: { doc: ApiDocument | undefined; onClose: () => void }) {
  const text = doc ? JSON.stringify(doc, null, 2) : '';
  return (
    <Dialog.Root open={!!doc} onOpenChange={(open) => !open && onClose()}>
      <Dialog.Portal>
        <Dialog.Overlay className="dialog-overlay" />
        <Dialog.Content className="dialog json-dialog">
          <Dialog.Title>Document {doc ? String(doc._id) : ''}</Dialog.Title>
          <Dialog.Description className="muted">The document as the API returns it.</Dialog.Description>
          <pre className="mono json-view" tabIndex={0} aria-label="Document JSON">
            {text}
          </pre>
          <div className="row">
            <CopyButton text={text} label="Copy JSON" />
            <Dialog.Close asChild>
              <button type="button">Close</button>
            </Dialog.Close>
          </div>
        </Dialog.Content>
      </Dialog.Portal>
    </Dialog.Root>
  );
}
