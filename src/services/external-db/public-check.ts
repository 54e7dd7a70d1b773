// The dashboard role's call to the public role's internal verification endpoint, so that the
// connection string is also checked from the public role's network and address (SERVICE-SPEC:
// "checked from two separate services"). Authenticated by INTERNAL_API_SECRET.
import type { CheckOutcome, RemoteCheck } from './verify.js';

export const INTERNAL_SECRET_HEADER = 'x-internal-secret';
export const VERIFY_PATH = '/api/internal/external-database/verify';

const KINDS = new Set(['format', 'restricted', 'auth', 'network', 'other']);

function outcomeOf(body: unknown): CheckOutcome | undefined {
  const data = (body as { data?: { ok?: unknown; kind?: unknown; reason?: unknown } } | null)?.data;
  if (data?.ok === true) return { ok: true };
  if (data?.ok === false && typeof data.kind === 'string' && KINDS.has(data.kind)) {
    return {
      ok: false,
      kind: data.kind as Exclude<CheckOutcome, { ok: true }>['kind'],
      reason: String(data.reason ?? ''),
    };
  }
  return undefined;
}

/** Undefined when the public role is down, slow past the deadline, or answers anything but a result. */
export function publicRoleCheck(baseUrl: string, secret: string): RemoteCheck {
  return async (uri, deadlineMs) => {
    try {
      const res = await fetch(`${baseUrl}${VERIFY_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', [INTERNAL_SECRET_HEADER]: secret },
        body: JSON.stringify({ uri }),
        signal: AbortSignal.timeout(Math.max(1, deadlineMs)),
        redirect: 'error',
      });
      if (res.status !== 200) return undefined;
      return outcomeOf(await res.json());
    } catch {
      return undefined;
    }
  };
}
