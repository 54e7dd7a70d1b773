// The typed client of the dashboard API (openapi-fetch over the generated paths) and the one place
// that turns a failed call into words a person can act on.
import createClient from 'openapi-fetch';
import type { components, paths } from '../../generated/dashboard';

export type Schemas = components['schemas'];
export type Project = Schemas['Project'];
export type Developer = Schemas['Developer'];
export type FieldDef = Schemas['FieldDef'];
export type Collection = Schemas['CollectionDef'];
export type ApiDocument = Schemas['Document'];

export const api = createClient<paths>({ baseUrl: '', credentials: 'same-origin' });

export interface Detail {
  path: string;
  message: string;
}

/** A refused or failed call: the API's own message, its code and the fields it names. */
export class ApiFailure extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string,
    readonly details: Detail[],
    /** Seconds to wait before trying again (a 429's Retry-After). */
    readonly retryAfter?: number,
  ) {
    super(message);
  }

  /** The API's message for one field path (`fields.0.name`), if it named that field. */
  forField(path: string): string | undefined {
    return this.details.find((d) => d.path === path)?.message;
  }
}

const PLAIN: Record<number, string> = {
  401: 'You are signed out. Log in again to continue.',
  413: 'That is too large for the server to accept.',
  429: 'Too many attempts. Wait a moment and try again.',
  500: 'The server ran into a problem. Try again; if it keeps happening, tell the operator.',
  503: 'A service the dashboard depends on is down. Try again in a minute.',
};

/** `body.fields.0.name` (request validation) and `fields.0.name` (services) name the same field. */
const normalize = (path: string) => path.replace(/^body\.?/, '').replace(/\[(\d+)\]/g, '.$1');

/** "in 42 seconds", "in 3 minutes": when a refused attempt may be made again. */
export function waitWords(seconds: number): string {
  if (seconds < 90) return `in ${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `in ${minutes} minutes`;
}

export function failureOf(status: number, error: unknown, retryAfter?: number): ApiFailure {
  const body = (error ?? {}) as { message?: string; code?: string; details?: Detail[] };
  let message = body.message || PLAIN[status] || `The request failed (HTTP ${status}).`;
  if (status === 429 && retryAfter) message = `Too many attempts. Try again ${waitWords(retryAfter)}.`;
  const details = (body.details ?? []).map((d) => ({ ...d, path: normalize(d.path) }));
  return new ApiFailure(message, status, body.code ?? 'ERROR', details, retryAfter);
}

/** Calls whose 401 means "not logged in" rather than "the session ended". */
const SIGN_IN = ['/api/auth/login', '/api/auth/signup', '/api/user/me'];

/** Fired when a call is refused for want of a session: the shell returns to the log-in page. */
export const SESSION_ENDED = 'dashboard:session-ended';

/** Unwraps an openapi-fetch answer: its data, or an ApiFailure. A network error gets plain words. */
export async function call<T>(
  request: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<NonNullable<T>> {
  let result: { data?: T; error?: unknown; response: Response };
  try {
    result = await request;
  } catch {
    throw new ApiFailure(
      'Could not reach the server. Check your connection and try again.',
      0,
      'NETWORK_ERROR',
      [],
    );
  }
  if (result.error !== undefined || !result.response.ok) {
    const { status, headers, url } = result.response;
    // A wrong current password (password change, new access token) refuses the form, not the session.
    const code = (result.error as { code?: string } | undefined)?.code;
    if (
      status === 401 &&
      code !== 'INVALID_CREDENTIALS' &&
      !SIGN_IN.includes(new URL(url, location.href).pathname)
    ) {
      window.dispatchEvent(new Event(SESSION_ENDED));
    }
    const retry = Number(headers.get('Retry-After'));
    throw failureOf(status, result.error, Number.isFinite(retry) && retry > 0 ? retry : undefined);
  }
  return result.data as NonNullable<T>;
}

export const errorText = (err: unknown) =>
  err instanceof Error ? err.message : 'Something went wrong. Try again.';

export function formatBytes(bytes: number | null | undefined): string {
  if (bytes === null || bytes === undefined) return '—';
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}
