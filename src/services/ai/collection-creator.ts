// The Collection Creator (DECISIONS §8): a chat session in which the model proposes a collection
// definition, checked by the collections API's own validator, and created by the collections
// service when the developer confirms. On the platform key a session may take 20 iterations and
// takes one slot of the month's cap the first time it uses that key; a supplied key has neither.
// A model call the provider billed keeps both, even when its answer is refused.
import { conflict, forbidden, notFound } from '../../http/errors.js';
import type { AiSessionsRepo } from '../../db/ai-sessions.js';
import { checkCollectionInput } from '../schema/field-definitions.js';
import type { CollectionsService } from '../collections.js';
import type { RequestContext } from '../context.js';
import type { CollectionDef } from '../types.js';
import type { TakenSlot } from './caps.js';
import { asModelProblem, invalidOutput, isRecord, parseModelJson } from './model-output.js';
import { collectionCreatorPrompt } from './prompts.js';
import type { AiRequestKit, AiTarget } from './request.js';
import type { AiSession, Clock, KeySource } from './types.js';

export const PLATFORM_ITERATIONS_PER_SESSION = 20;
export const SESSION_TTL_MS = 24 * 3600 * 1000;
const WHAT = 'collection definition';
const MAX_REPLY = 4000;

export function collectionCreator(
  kit: AiRequestKit,
  sessions: AiSessionsRepo,
  collections: CollectionsService,
  listNames: (projectId: string) => Promise<string[]>,
  clock: Clock,
) {
  const sessionNotFound = () => notFound('AI session not found or expired', 'AI_SESSION_NOT_FOUND');

  function view(session: AiSession, keySource: KeySource) {
    const last = [...session.messages].reverse().find((m) => m.role === 'assistant');
    return {
      id: session.id,
      reply: last?.content ?? '',
      proposal: session.proposal,
      messages: session.messages.map((m) => ({ ...m, at: m.at.toISOString() })),
      iterations: session.iterations,
      platformIterationsLeft: PLATFORM_ITERATIONS_PER_SESSION - session.platformIterations,
      keySource,
      expiresAt: session.expiresAt.toISOString(),
    };
  }

  /** The model's reply and proposal, the proposal as the collections API would store it. */
  function checkAnswer(content: string, existing: string[]) {
    const answer = parseModelJson(content, WHAT);
    if (typeof answer.reply !== 'string') throw invalidOutput(WHAT, '"reply" must be a string');
    const raw = answer.collection ?? null;
    if (raw !== null && !isRecord(raw)) throw invalidOutput(WHAT, '"collection" must be an object or null');
    let proposal: Record<string, unknown> | null = null;
    if (raw) {
      try {
        proposal = {
          ...checkCollectionInput(raw, { existingCollections: new Set(existing), operation: 'create' }),
        };
      } catch (err) {
        asModelProblem(err, WHAT);
      }
      if (existing.includes(proposal.name as string)) {
        throw invalidOutput(WHAT, `a collection named "${String(proposal.name)}" already exists`);
      }
    }
    return { reply: answer.reply.slice(0, MAX_REPLY), proposal };
  }

  async function send(target: AiTarget, session: AiSession, message: string) {
    const key = await kit.resolveKey(target);
    const platform = key.source === 'platform';
    const claimed = await sessions.claimIteration(
      session,
      clock.now(),
      platform ? PLATFORM_ITERATIONS_PER_SESSION : undefined,
    );
    if (!claimed) {
      if (!(await sessions.find(session.id, session.projectId, session.developerId, clock.now()))) {
        throw sessionNotFound();
      }
      throw forbidden(
        `This Collection Creator session has used its ${PLATFORM_ITERATIONS_PER_SESSION} iterations on the platform's AI key: start a new session, or add a project or account AI provider key`,
        'AI_SESSION_LIMIT',
      );
    }
    let slot: TakenSlot | undefined;
    const { complete, meter } = kit.metered(target, key);
    try {
      if (platform && (await sessions.markCharged(session.id, true))) {
        try {
          slot = await kit.caps.take(target.project.id, 'collectionCreator', target.limits);
        } catch (err) {
          await sessions.markCharged(session.id, false);
          throw err;
        }
      }
      const existing = await listNames(target.project.id);
      const history = claimed.messages.map(({ role, content }) => ({ role, content }));
      const content = await complete([
        { role: 'system', content: collectionCreatorPrompt(existing) },
        ...history,
        { role: 'user', content: message },
      ]);
      const { reply, proposal } = checkAnswer(content, existing);
      const now = clock.now();
      const saved = await sessions.record(
        session.id,
        [
          { role: 'user', content: message, at: now },
          { role: 'assistant', content: reply, at: now },
        ],
        proposal ?? claimed.proposal,
        now,
        new Date(now.getTime() + SESSION_TTL_MS),
      );
      if (!saved) throw sessionNotFound();
      // A session is one schema design in the usage figures, counted at its first answer.
      if (!claimed.messages.some((m) => m.role === 'assistant')) {
        kit.count(target.project.id, 'aiCollectionCreator');
      }
      return view(saved, key.source);
    } catch (err) {
      // An answer the provider billed keeps its iteration and its slot, valid or not.
      if (meter.billed) throw err;
      await sessions.releaseIteration(session.id, platform);
      if (slot) {
        await kit.caps.refund(target.project.id, slot);
        await sessions.markCharged(session.id, false);
      }
      throw err;
    }
  }

  return {
    async start(ctx: RequestContext, projectId: string, message: string) {
      const target = await kit.open(ctx, projectId);
      const now = clock.now();
      const session = await sessions.create(
        target.project.id,
        target.developer.id,
        now,
        new Date(now.getTime() + SESSION_TTL_MS),
      );
      try {
        return await send(target, session, message);
      } catch (err) {
        // A session whose first answer failed holds nothing worth keeping.
        await sessions.delete(session.id);
        throw err;
      }
    },

    async message(ctx: RequestContext, projectId: string, sessionId: string, message: string) {
      const target = await kit.open(ctx, projectId);
      const session = await sessions.find(sessionId, target.project.id, target.developer.id, clock.now());
      if (!session) throw sessionNotFound();
      return send(target, session, message);
    },

    /** Creates the proposed collection through the collections service; the session ends. */
    async confirm(ctx: RequestContext, projectId: string, sessionId: string): Promise<CollectionDef> {
      const target = await kit.open(ctx, projectId);
      const session = await sessions.find(sessionId, target.project.id, target.developer.id, clock.now());
      if (!session) throw sessionNotFound();
      if (!session.proposal) {
        throw conflict('The session has no proposed collection to create yet', 'AI_NO_PROPOSAL');
      }
      const created = await collections.create(ctx, target.project.id, session.proposal);
      await sessions.delete(session.id);
      return created;
    },
  };
}

export type CollectionCreator = ReturnType<typeof collectionCreator>;
