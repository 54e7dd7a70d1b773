// Where to go after log-in or sign-up: the `next` of the address (`/login?next=...`, set by the
// shell when a signed-out visitor asks for a page) when it is a page of this app. A sign-up ends
// on another page load, the one its confirmation mail opens, where the address no longer carries
// `next`: the sign-up form keeps it in localStorage for the address signed up, for as long as the
// mailed link works, and the confirmation takes it back (an invitation link opened before having
// an account then leads to the invitation once the account exists).

export const AUTH_PATHS = ['/login', '/signup', '/signup/confirm'];
const KEY = 'baas:next-after-signup';
/** As long as a sign-up's confirmation link works (docs/projects-and-keys.md). */
const SIGNUP_LINK_MS = 24 * 3600_000;

/** A page of this app (same origin, not a log-in page), or undefined. */
function pageOfApp(next: string | null | undefined): string | undefined {
  return next &&
    next.startsWith('/') &&
    !next.startsWith('//') &&
    !next.startsWith('/\\') &&
    !AUTH_PATHS.includes(next)
    ? next
    : undefined;
}

/** The `next` of the current address when it is a page of this app. */
export const askedPage = () => pageOfApp(new URLSearchParams(location.search).get('next'));

/**
 * The address an invitation was sent to, when the page asked for is the invitation's
 * (`/invitations/accept?token=...&email=...`, as the invitation mail links it): the log-in and
 * sign-up forms start with it. The log-in form may be drawn on the invitation's own address, before
 * the shell moves it to `/login?next=...`.
 */
export function invitedEmail(): string {
  const next =
    location.pathname === '/invitations/accept' ? location.pathname + location.search : askedPage();
  if (!next?.startsWith('/invitations/accept?')) return '';
  return new URLSearchParams(next.slice(next.indexOf('?'))).get('email')?.trim() ?? '';
}

/** At sign-up: keeps the page asked for, for the address that signed up. */
export function rememberForSignup(email: string): void {
  const next = askedPage();
  try {
    if (next)
      localStorage.setItem(
        KEY,
        JSON.stringify({ email: email.toLowerCase(), next, until: Date.now() + SIGNUP_LINK_MS }),
      );
    else localStorage.removeItem(KEY);
  } catch {
    // Storage refused (private mode, quota): the account still works, the home page follows.
  }
}

/** After a sign-up's confirmation: the page kept for this address, once. */
function takeForSignup(email: string): string | undefined {
  try {
    const kept = JSON.parse(localStorage.getItem(KEY) ?? 'null') as {
      email?: string;
      next?: string;
      until?: number;
    } | null;
    localStorage.removeItem(KEY);
    if (!kept || kept.email !== email.toLowerCase() || !(Number(kept.until) > Date.now())) return undefined;
    return pageOfApp(kept.next);
  } catch {
    return undefined;
  }
}

/** Where a developer who just logged in or confirmed their sign-up goes. */
export function pageAfterLogin(path: string, email: string): string {
  return askedPage() ?? (path === '/signup/confirm' ? takeForSignup(email) : undefined) ?? '/';
}
