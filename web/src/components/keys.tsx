// API keys shown once (after a project is created or a key rotated): each with a copy button and
// a warning that the dashboard keeps only their last four characters.
import { CopyButton } from './ui';

function KeyRow({ label, value, name }: { label: string; value: string; name: string }) {
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
      </div>
    </div>
  );
}

export function KeysOnce({ publishable, secret }: { publishable?: string; secret?: string }) {
  return (
    <div className="keys">
      <p className="warning" role="alert">
        Copy these keys now: they are shown only this once. The dashboard keeps only their last four
        characters. Keep the secret key on your servers; never put it in a web page or an app.
      </p>
      {publishable && <KeyRow label="Publishable key" value={publishable} name="publishable" />}
      {secret && <KeyRow label="Secret key" value={secret} name="secret" />}
    </div>
  );
}
