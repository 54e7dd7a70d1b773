// Secrets out of captured text: a function's env values never appear in its logs or error, even
// when the code prints them. Values under four characters are left alone (redacting "1" or "on"
// would make every log unreadable and protect nothing).

export const REDACTED = '[redacted]';
const MIN_SECRET_LENGTH = 4;

export function redactor(env: Record<string, string>): (text: string) => string {
  // Longest first, so a secret that contains another is replaced whole.
  const secrets = Object.values(env)
    .filter((value) => typeof value === 'string' && value.length >= MIN_SECRET_LENGTH)
    .sort((a, b) => b.length - a.length);
  if (secrets.length === 0) return (text) => text;
  return (text) => secrets.reduce((out, secret) => out.split(secret).join(REDACTED), text);
}
