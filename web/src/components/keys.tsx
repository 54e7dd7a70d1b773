// API keys shown once (after a project is created or a key rotated): each with a copy button and
// a warning that the dashboard keeps only their last four characters.
import { CopyButton } from './ui';

function KeyRow({
  label,
  value,
  name,
  onDismiss,
}: {
  label: string;
  value: string;
  name: string;
  onDismiss?: () => void;
}) {
  return (
    <div className="key-row">
      <label htmlFor={`key-${name}`}>{label}</label>
      <div className="key-value">
        <input
          id={`key-${name}`}
          readOnly
          value={value}
          data-testid={`key-${name}`}
          onFocus={(e) => e.target.select()}
        />
        <CopyButton text={value} label={`Copy ${label.toLowerCase()}`} />
        {onDismiss && (
          <button type="button" className="secondary" onClick={onDismiss}>
            Hide the new {label.toLowerCase()}
          </button>
        )}
      </div>
    </div>
  );
}

/** `onDismiss`: each key stays until its own Hide button is pressed (a later rotation adds to them). */
export function KeysOnce({
  publishable,
  secret,
  onDismiss,
}: {
  publishable?: string;
  secret?: string;
  onDismiss?: (kind: 'publishable' | 'secret') => void;
}) {
  return (
    <div className="keys">
      <p className="warning" role="alert">
        Copy these keys now: they are shown only this once. The dashboard keeps only their last four
        characters. Keep the secret key on your servers; never put it in a web page or an app.
      </p>
      {publishable && (
        <KeyRow
          label="Publishable key"
          value={publishable}
          name="publishable"
          onDismiss={onDismiss && (() => onDismiss('publishable'))}
        />
      )}
      {secret && (
        <KeyRow
          label="Secret key"
          value={secret}
          name="secret"
          onDismiss={onDismiss && (() => onDismiss('secret'))}
        />
      )}
    </div>
  );
}
