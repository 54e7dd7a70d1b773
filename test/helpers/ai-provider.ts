// An OpenAI-compatible chat-completions server on loopback for the AI tests: it checks the key it
// receives (a 401 in the provider's own shape, echoing the key as real providers partly do, for
// any other key) and answers with what the test queued: a model answer (valid, malformed or
// hostile), a raw body, an HTTP status, or nothing in time. Every call is recorded.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProviderCall {
  key: string | undefined;
  body: { model?: string; messages?: { role: string; content: string }[]; [k: string]: unknown };
}

export type ProviderReply =
  | { content: string }
  | { json: unknown }
  | { status: number; body?: string }
  | { raw: string }
  | { delayMs: number; content: string };

export interface AiProviderServer {
  /** Base URL for AI_BASE_URL (the path `/chat/completions` is appended by the service). */
  readonly baseUrl: string;
  readonly calls: ProviderCall[];
  /** Keys the server accepts. */
  readonly keys: Set<string>;
  /** Queues replies, used in order; when none is queued the default answer is sent. */
  queue(...replies: ProviderReply[]): void;
  /** The answer sent when nothing is queued (or a function of the call that picks it). */
  fallback: ProviderReply | ((call: ProviderCall) => ProviderReply);
  close(): Promise<void>;
}

const completion = (content: string) =>
  JSON.stringify({
    id: 'chatcmpl-test',
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: 'test-model',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 10, total_tokens: 20 },
  });

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startAiProvider(keys: string[]): Promise<AiProviderServer> {
  const calls: ProviderCall[] = [];
  const pending: ProviderReply[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const state: AiProviderServer = {
    baseUrl: '',
    calls,
    keys: new Set(keys),
    queue: (...replies) => pending.push(...replies),
    fallback: { json: { type: 'filter', filters: {}, explanation: 'everything' } },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server: Server = createServer(async (req, res) => {
    const text = await readBody(req);
    const send = (status: number, body: string) => {
      if (res.destroyed) return;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      return send(
        404,
        JSON.stringify({ error: { message: 'Unknown request URL', type: 'invalid_request_error' } }),
      );
    }
    const key = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    let body: ProviderCall['body'];
    try {
      body = JSON.parse(text) as ProviderCall['body'];
    } catch {
      return send(400, JSON.stringify({ error: { message: 'invalid JSON', type: 'invalid_request_error' } }));
    }
    calls.push({ key, body });
    if (!key || !state.keys.has(key)) {
      return send(
        401,
        JSON.stringify({
          error: {
            message: `Invalid API Key: ${key}`,
            type: 'invalid_request_error',
            code: 'invalid_api_key',
          },
        }),
      );
    }
    if (typeof body.model !== 'string' || !Array.isArray(body.messages)) {
      return send(400, JSON.stringify({ error: { message: 'model and messages are required' } }));
    }
    const reply =
      pending.shift() ??
      (typeof state.fallback === 'function' ? state.fallback(calls.at(-1)!) : state.fallback);
    if ('delayMs' in reply) {
      await new Promise((resolve) => setTimeout(resolve, reply.delayMs));
      return send(200, completion(reply.content));
    }
    if ('status' in reply)
      return send(reply.status, reply.body ?? JSON.stringify({ error: { message: 'boom' } }));
    if ('raw' in reply) return send(200, reply.raw);
    send(200, completion('json' in reply ? JSON.stringify(reply.json) : reply.content));
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  (state as { baseUrl: string }).baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}

/**
 * The provider of the contract and fuzzing runs: it accepts the platform key below and the spec's
 * example key (saved by the example of PUT /api/user/me/byok), and answers every prompt with a
 * valid query or collection design (a new collection name each time, so that a design is never
 * refused for a name an earlier one took). `env` points the apps at it (and lifts the AI tools'
 * per-minute limits).
 */
export async function startFixtureAiProvider() {
  const platformKey = 'gsk_contract_platform_0123456789';
  const provider = await startAiProvider([platformKey, 'gsk_0123456789abcdefghijklmnopqrstuvwxyz']);
  let designs = 0;
  provider.fallback = (call) =>
    call.body.messages?.[0]?.content.includes('design collections')
      ? {
          json: {
            reply: 'A products collection with a title.',
            collection: {
              name: `products${++designs}`,
              mode: 'schema',
              fields: [{ name: 'title', type: 'String' }],
            },
          },
        }
      : { json: { type: 'filter', filters: {}, explanation: 'Every document.' } };
  // The runs call the AI operations more often than the per-minute limits allow.
  const env = {
    AI_BASE_URL: provider.baseUrl,
    AI_PLATFORM_KEY: platformKey,
    AI_PLATFORM_REQUESTS_PER_MINUTE: '1000000',
    AI_REQUESTS_PER_MINUTE: '1000000',
  };
  return { provider, env };
}
