// The dashboard API as the CLI calls it: openapi-fetch typed by the service's own document
// (generated/dashboard.d.ts), a personal access token as Bearer, and one way to turn a refusal
// into a CliError that carries the server's message and a readable exit code.
import createClient from 'openapi-fetch';
import type { paths } from '../../generated/dashboard.js';
import { CliError, EXIT } from './settings.js';
import { checkVersion } from './version.js';

export type Api = ReturnType<typeof createApi>;

export function createApi(url: string, token: string) {
  checkVersion(url);
  return createClient<paths>({
    baseUrl: url,
    headers: { authorization: `Bearer ${token}`, 'user-agent': 'mongobaas-cli' },
  });
}

interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The `data` of a success envelope, or a CliError with the server's message. */
export async function unwrap<T extends { data: unknown }>(call: Promise<Answer<T>>): Promise<T['data']> {
  let answer: Answer<T>;
  try {
    answer = await call;
  } catch (err) {
    throw new CliError(`Cannot reach the dashboard API: ${(err as Error).message}`);
  }
  if (answer.error !== undefined || !answer.data) throw refusal(answer.response.status, answer.error);
  return answer.data.data;
}

export function refusal(status: number, body: unknown): CliError {
  const { message, code, details } = (body ?? {}) as {
    message?: string;
    code?: string;
    details?: { path: string; message: string }[];
  };
  const detail = details?.length ? ` (${details.map((d) => `${d.path}: ${d.message}`).join('; ')})` : '';
  const text = `${message ?? `HTTP ${status}`}${detail}${code ? ` [${code}]` : ''}`;
  return new CliError(text, status === 401 ? EXIT.auth : EXIT.failed);
}
