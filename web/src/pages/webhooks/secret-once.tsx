// A signing secret, shown once (after creation or rotation) with a copy button.
import { CopyButton } from '../../components/ui';

export function SecretOnce({ secret }: { secret: string }) {
  return (
    <div className="keys">
      <p className="warning" role="alert">
        Copy the signing secret now: it is shown only this once.
      </p>
      <div className="key-value">
        <input readOnly value={secret} aria-label="Signing secret" data-testid="webhook-secret" />
        <CopyButton text={secret} label="Copy secret" />
      </div>
    </div>
  );
}
