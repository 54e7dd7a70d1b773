// The before-hooks of the write paths (docs/functions.md): every write that stores client data
// (single and bulk creates, PATCH/PUT, trash and restore, either key) asks the collection's hook
// first. The client's input is validated before the hook sees it, and what the hook answers goes
// through the same validation, owner and quota checks as a client write afterwards, so a hook can
// narrow what a caller may do, never widen it. No hook: one lookup in the cached table.
import { ApiError } from '../../http/errors.js';
import type { SyncHooks } from '../functions/hooks.js';
import type { TriggerType } from '../functions/types.js';
import { validateDocument } from '../schema/validate-document.js';
import type { Target } from './access.js';

/** Re-labels a validation error of one document of a bulk with its index (`documents.3.title`). */
export function inBulk(err: unknown, index: number): never {
  if (!(err instanceof ApiError) || err.status !== 400) throw err;
  const prefix = `documents.${index}`;
  const message = err.message.startsWith('Validation failed: ')
    ? `Validation failed: ${prefix}.${err.message.slice('Validation failed: '.length)}`
    : `${prefix}: ${err.message}`;
  const details = err.details?.map((d) => ({
    path: `${prefix}.${d.path}`,
    message: `${prefix}.${d.message}`,
  }));
  throw new ApiError(err.status, err.code, message, details);
}

export type WriteHooks = Pick<SyncHooks, 'find' | 'run'>;

/** JSON as the hook receives it (dates as ISO strings). */
const asJson = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;

const badAnswer = (trigger: TriggerType, problem: string) =>
  new ApiError(503, 'HOOK_UNAVAILABLE', `The ${trigger} hook's answer was not usable: ${problem}`);

export function writeHooks(hooks: WriteHooks | undefined) {
  async function ask(target: Target, trigger: TriggerType, event: Record<string, unknown>) {
    if (!hooks) return undefined;
    const fn = await hooks.find(target.ref.projectId, trigger, target.ref.collection);
    if (!fn) return undefined;
    const { project, keyKind, userId, functionDepth, ip, request } = target.caller;
    return hooks.run(fn, {
      project,
      caller: { keyKind, userId: userId ?? null, project, depth: functionDepth ?? 0, ip, request },
      trigger,
      collection: target.ref.collection,
      event,
    });
  }

  return {
    /** The bodies to create: the client's, or the hook's changed ones (validated again by the caller). */
    async create(target: Target, bodies: unknown[], bulk: boolean): Promise<unknown[]> {
      if (!hooks || !(await hooks.find(target.ref.projectId, 'beforeCreate', target.ref.collection)))
        return bodies;
      // The client's own input must be valid before any hook sees it.
      const documents = bodies.map((body, i) => {
        try {
          return asJson(validateDocument(target.def, body, 'create'));
        } catch (err) {
          if (!bulk) throw err;
          inBulk(err, i);
        }
      });
      const answer = await ask(target, 'beforeCreate', {
        operation: bulk ? 'bulkCreate' : 'create',
        documents,
      });
      if (!answer) return bodies;
      if (Array.isArray(answer.documents)) {
        if (answer.documents.length !== bodies.length)
          throw badAnswer('beforeCreate', `documents holds ${answer.documents.length}, not ${bodies.length}`);
        return answer.documents;
      }
      if (answer.document !== undefined) {
        if (bodies.length !== 1) throw badAnswer('beforeCreate', 'a bulk needs documents, not document');
        return [answer.document];
      }
      return bodies;
    },

    /** The changes to apply: the client's, or the hook's (validated again by the caller). */
    async update(target: Target, id: string, body: unknown): Promise<unknown> {
      if (!hooks || !(await hooks.find(target.ref.projectId, 'beforeUpdate', target.ref.collection)))
        return body;
      const changes = asJson(validateDocument(target.def, body, 'update'));
      const answer = await ask(target, 'beforeUpdate', { operation: 'update', documentId: id, changes });
      if (!answer) return body;
      const next = answer.changes ?? answer.document;
      return next === undefined ? body : next;
    },

    /** Trash (beforeDelete) or restore (beforeUpdate): the hook may only refuse. */
    async change(
      target: Target,
      ids: string[],
      operation: 'trash' | 'bulkTrash' | 'restore' | 'bulkRestore',
    ) {
      if (ids.length === 0) return;
      const trigger = operation.toLowerCase().endsWith('trash') ? 'beforeDelete' : 'beforeUpdate';
      await ask(target, trigger, { operation, documentIds: ids });
    },
  };
}

export type DocumentWriteHooks = ReturnType<typeof writeHooks>;
