// The AI provider: an OpenAI-compatible chat-completions API (DECISIONS §8). One POST per
// request, bounded in time and in the size of the answer. Whatever goes wrong becomes an ApiError
// in the service's own words: the provider's text never reaches the client or the log, since
// providers echo (parts of) the key in their error messages.
import type { AiSettings } from '../../config.js';
import { ApiError } from '../../http/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { ResolvedKey } from './types.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** Bytes of the provider's HTTP answer read at most; a longer one is refused. */
export const MAX_ANSWER_BYTES = 64 * 1024;
/** Tokens the model may write per answer. */
const MAX_TOKENS = 2048;

/**
 * Errors after which the provider did not bill the call: it could not be reached, or it answered
 * an error status. Anything else (an answer of any content, too large, or none in time after the
 * request went out) may have been billed, so it counts against the platform caps.
 */
const unbilled = new WeakSet<object>();
export const providerDidNotBill = (err: unknown) =>
  typeof err === 'object' && err !== null && unbilled.has(err);
const notBilled = (err: ApiError) => (unbilled.add(err), err);

export const invalidKey = (providerName: string) =>
  new ApiError(401, 'INVALID_AI_KEY', `Invalid BYOK ${providerName} key provided`);
const badGateway = (code: string, message: string) => new ApiError(502, code, message);

async function readCapped(res: Response): Promise<string | undefined> {
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function aiProvider(settings: AiSettings, log: Logger) {
  const url = `${settings.baseUrl}/chat/completions`;

  function refused(status: number, key: ResolvedKey): ApiError {
    if (status === 401 || status === 403) {
      return key.source === 'platform'
        ? badGateway('AI_PROVIDER_ERROR', "The AI provider refused the platform's key; try again later")
        : invalidKey(settings.providerName);
    }
    if (status === 429) {
      return badGateway(
        'AI_PROVIDER_RATE_LIMITED',
        'The AI provider is rate limiting requests; try again later',
      );
    }
    return badGateway('AI_PROVIDER_ERROR', `The AI provider failed to answer (status ${status})`);
  }

  return {
    /** The model's answer (the first choice's message content); `requestLog` carries the request id. */
    async complete(key: ResolvedKey, messages: ChatMessage[], requestLog: Logger = log): Promise<string> {
      const started = Date.now();
      let res: Response;
      let text: string | undefined;
      let answered = false;
      try {
        res = await fetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: settings.model,
            messages,
            temperature: 0,
            max_tokens: MAX_TOKENS,
            response_format: { type: 'json_object' },
          }),
          redirect: 'error',
          signal: AbortSignal.timeout(settings.timeoutMs),
        });
        answered = res.ok;
        text = res.ok ? await readCapped(res) : (await res.body?.cancel(), '');
      } catch (err) {
        const timedOut = (err as Error).name === 'TimeoutError';
        requestLog.warn(
          {
            component: 'ai',
            keySource: key.source,
            durationMs: Date.now() - started,
            reason: timedOut ? 'timeout' : 'network',
          },
          'AI provider request failed',
        );
        if (timedOut) {
          throw new ApiError(
            504,
            'AI_PROVIDER_TIMEOUT',
            `The AI provider did not answer within ${settings.timeoutMs / 1000} s; try again`,
          );
        }
        const unavailable = badGateway(
          'AI_PROVIDER_UNAVAILABLE',
          'The AI provider could not be reached; try again later',
        );
        // A connection lost while a successful answer was read may still be billed.
        throw answered ? unavailable : notBilled(unavailable);
      }
      requestLog.info(
        {
          component: 'ai',
          keySource: key.source,
          status: res.status,
          durationMs: Date.now() - started,
          model: settings.model,
        },
        'AI provider request',
      );
      if (!res.ok) throw notBilled(refused(res.status, key));
      if (text === undefined) {
        throw badGateway(
          'AI_ANSWER_TOO_LARGE',
          `The AI provider's answer is larger than ${MAX_ANSWER_BYTES / 1024} KiB; try a narrower request`,
        );
      }
      let content: unknown;
      try {
        content = (JSON.parse(text) as { choices?: { message?: { content?: unknown } }[] }).choices?.[0]
          ?.message?.content;
      } catch {
        content = undefined;
      }
      if (typeof content !== 'string') {
        throw badGateway('AI_PROVIDER_ERROR', 'The AI provider sent something that is not a chat completion');
      }
      return content;
    },
  };
}

export type AiProvider = ReturnType<typeof aiProvider>;
