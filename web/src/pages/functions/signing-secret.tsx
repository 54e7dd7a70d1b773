// An HTTP hook's Standard Webhooks signing secret: the API answers it once (at creation, or when a
// function first gets an HTTP runtime), so it stays on screen until the developer dismisses it.
import { CopyButton } from '../../components/ui';

export function SigningSecret({ secret, onDismiss }: { secret: string; onDismiss: () => void }) {
  return (
    <div className="keys">
      <p className="warning" role="alert">
        Copy the signing secret now: it is shown only this once. Your endpoint verifies each call with it.
      </p>
      <div className="key-value fn-secret">
        <input readOnly value={secret} aria-label="Signing secret" data-testid="function-secret" />
        <CopyButton text={secret} label="Copy secret" />
        <button type="button" className="secondary" onClick={onDismiss}>
          I have copied it
        </button>
      </div>
    </div>
  );
}
