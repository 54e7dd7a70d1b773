// Building blocks shared by the pages: links that use the router, the error and progress
// announcements (read out by screen readers), labelled fields with the API's message under them,
// and copy buttons.
import { useState, type ReactNode, type MouseEvent, type InputHTMLAttributes } from 'react';
import { navigate } from '../router';
import { errorText } from '../api';

export function Link({ to, children, className }: { to: string; children: ReactNode; className?: string }) {
  const onClick = (e: MouseEvent<HTMLAnchorElement>) => {
    if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
    e.preventDefault();
    navigate(to);
  };
  return (
    <a
      href={to}
      onClick={onClick}
      className={className}
      aria-current={location.pathname === to ? 'page' : undefined}
    >
      {children}
    </a>
  );
}

export function ErrorBox({ error }: { error: unknown }) {
  if (!error) return null;
  return (
    <div className="error" role="alert">
      {errorText(error)}
    </div>
  );
}

export function Notice({ children }: { children: ReactNode }) {
  return (
    <div className="notice" role="status">
      {children}
    </div>
  );
}

/** An operation in progress: an indeterminate bar, or a percentage when known. */
export function Progress({ label, value }: { label: string; value?: number }) {
  return (
    <div className="progress" role="status" aria-live="polite">
      <span>{label}</span>
      <progress max={100} value={value} aria-label={label} />
    </div>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
    } catch {
      // Without clipboard permission (plain http on another host) fall back to a selection copy.
      const area = document.createElement('textarea');
      area.value = text;
      document.body.appendChild(area);
      area.select();
      document.execCommand('copy');
      area.remove();
    }
    setDone(true);
    setTimeout(() => setDone(false), 2000);
  };
  return (
    <button
      type="button"
      className="secondary"
      onClick={copy}
      aria-label={done ? undefined : `${label}: copy to clipboard`}
    >
      {done ? 'Copied' : label}
    </button>
  );
}

type InputProps = InputHTMLAttributes<HTMLInputElement> & { label: string; error?: string; hint?: string };

/**
 * A labelled input; `error` (the API's own message) or else `hint` is shown under it and tied to
 * it for readers; `required` marks it as such for them (the forms check with noValidate).
 */
export function Field({ label, error, hint, id, ...rest }: InputProps) {
  const inputId = id ?? `f-${label.replace(/\W+/g, '-').toLowerCase()}`;
  const described = error ? `${inputId}-err` : hint ? `${inputId}-hint` : undefined;
  return (
    <div className="field">
      <label htmlFor={inputId}>{label}</label>
      <input id={inputId} aria-invalid={error ? true : undefined} aria-describedby={described} {...rest} />
      {hint && !error && (
        <small className="hint" id={`${inputId}-hint`}>
          {hint}
        </small>
      )}
      {error && (
        <small className="field-error" id={`${inputId}-err`}>
          {error}
        </small>
      )}
    </div>
  );
}

export function FieldError({ message, id }: { message?: string; id?: string }) {
  if (!message) return null;
  return (
    <small className="field-error" id={id} role="alert">
      {message}
    </small>
  );
}

/** A page's notice after an action (useNotice): an alert for a failure, a notice otherwise. */
export function NoticeLine({ notice }: { notice: { text: string; error?: boolean } | undefined }) {
  if (!notice) return null;
  return notice.error ? (
    <div className="error" role="alert">
      {notice.text}
    </div>
  ) : (
    <Notice>{notice.text}</Notice>
  );
}
