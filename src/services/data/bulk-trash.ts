// Moving up to 100 documents to the trash, or out of it, in one request: one read sorts the ids
// (not found, another user's, to change), then each document is changed as the single operation
// changes it, with one event per document announced together and one quota charge for them all.
import { ApiError, badRequest } from '../../http/errors.js';
import { toObjectId } from '../../db/ids.js';
import type { DocumentsRepo, StoredDocument } from '../../db/documents.js';
import type { RequestContext } from '../context.js';
import type { EventBus, EventIntent, ServiceEvent } from '../events.js';
import {
  actorOf,
  documentId,
  openCollection,
  writeOwner,
  type DefinitionLookup,
  type Target,
} from './access.js';
import type { DatabaseQuota } from './quota.js';
import { toApi } from './serialize.js';
import { MAX_BULK } from './writes.js';
import { writeHooks, type DocumentWriteHooks } from './write-hooks.js';

/** As many ids as a bulk create takes documents. */
export const MAX_BULK_IDS = MAX_BULK;
/** Document writes of one bulk under way at once: bounded, so one request cannot take the pool. */
const PARALLEL = 8;

export type BulkStatus = 'trashed' | 'restored' | 'notFound' | 'forbidden' | 'conflict';

export interface BulkResult {
  id: string;
  status: BulkStatus;
  /** When moved to the trash. */
  deletedAt?: string;
  /** Why nothing changed, in words. */
  message?: string;
}

export interface BulkOutcome {
  results: BulkResult[];
  counts: Record<BulkStatus, number>;
}

type Kind = 'trash' | 'restore';

const WORDS: Record<BulkStatus, string> = {
  trashed: 'moved to trash',
  restored: 'restored',
  notFound: 'not found',
  forbidden: 'forbidden',
  conflict: 'in conflict',
};

/** "3 moved to trash, 1 not found": the counts that are not zero, in words. */
export function describeOutcome(counts: BulkOutcome['counts']): string {
  const parts = (Object.keys(WORDS) as BulkStatus[])
    .filter((status) => counts[status] > 0)
    .map((status) => `${counts[status]} ${WORDS[status]}`);
  return parts.join(', ');
}

/** The distinct ids of a request, lower-cased, in the order first sent; 400 naming a bad one. */
function distinctIds(ids: unknown): string[] {
  if (!Array.isArray(ids) || ids.length === 0 || ids.length > MAX_BULK_IDS) {
    throw badRequest(
      `Validation failed: ids must hold 1 to ${MAX_BULK_IDS} document ids`,
      [{ path: 'ids', message: `ids must hold 1 to ${MAX_BULK_IDS} document ids` }],
      'VALIDATION_FAILED',
    );
  }
  const seen = new Set<string>();
  ids.forEach((id, i) => {
    if (typeof id !== 'string' || !/^[0-9a-fA-F]{24}$/.test(id)) {
      throw badRequest(
        `Invalid document ID at ids.${i}`,
        [{ path: `ids.${i}`, message: 'id must be an object id of 24 hex characters' }],
        'INVALID_ID',
      );
    }
    seen.add(documentId(id));
  });
  return [...seen];
}

/** Runs `work` over `items`, at most `limit` at a time; the results keep the items' order. */
async function inBatches<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return out;
}

export function bulkTrash(
  repo: DocumentsRepo,
  definitions: DefinitionLookup,
  quota: DatabaseQuota,
  events: EventBus,
  hooks: DocumentWriteHooks = writeHooks(undefined),
) {
  /** The unique values of `candidates` that an active document (or an earlier candidate) holds. */
  async function uniqueClashes(target: Target, candidates: StoredDocument[]): Promise<Map<string, string>> {
    const clashes = new Map<string, string>();
    const ids = candidates.map((doc) => toObjectId(doc._id)!);
    for (const field of target.def.fields.filter((f) => f.unique)) {
      const valued = candidates.filter((doc) => doc[field.name] !== undefined && doc[field.name] !== null);
      if (!valued.length) continue;
      const taken = await repo.find(target.ref, {
        filter: {
          [field.name]: { $in: valued.map((doc) => doc[field.name]) },
          _id: { $nin: ids },
          isDeleted: { $ne: true },
        },
        projection: { [field.name]: 1 },
      });
      const used = new Set(taken.map((doc) => JSON.stringify(doc[field.name])));
      for (const doc of valued) {
        const key = JSON.stringify(doc[field.name]);
        // Two trashed documents with one value: the first comes back, the second clashes with it.
        if (used.has(key) && !clashes.has(doc._id)) {
          clashes.set(
            doc._id,
            `Cannot restore: the value of "${field.name}" is now used by another document`,
          );
        }
        used.add(key);
      }
    }
    return clashes;
  }

  async function run(ctx: RequestContext, name: string, rawIds: unknown, kind: Kind): Promise<BulkOutcome> {
    const target = await openCollection(ctx, name, definitions);
    const ownerId = writeOwner(target);
    const ids = distinctIds(rawIds);
    const owner = target.def.rls.ownerField;
    const restoring = kind === 'restore';
    const found = await repo.find(target.ref, {
      filter: {
        _id: { $in: ids.map((id) => toObjectId(id)!) },
        isDeleted: restoring ? true : { $ne: true },
      },
      // A restore checks the unique values; a trash needs only the owner.
      projection: restoring ? undefined : { _id: 1, [owner]: 1 },
    });
    const byId = new Map(found.map((doc) => [doc._id, doc]));
    const results = new Map<string, BulkResult>();
    const candidates: StoredDocument[] = [];
    for (const id of ids) {
      const doc = byId.get(id);
      if (!doc) {
        const message = restoring ? 'Document not found in the trash' : 'Document not found';
        results.set(id, { id, status: 'notFound', message });
      } else if (ownerId !== undefined && doc[owner] !== ownerId) {
        results.set(id, { id, status: 'forbidden', message: 'This document belongs to another user' });
      } else candidates.push(doc);
    }
    const clashes = restoring ? await uniqueClashes(target, candidates) : new Map<string, string>();
    for (const [id, message] of clashes) results.set(id, { id, status: 'conflict', message });
    const changing = candidates.filter((doc) => !clashes.has(doc._id));
    // One hook call for the batch; a refusal refuses the whole request.
    await hooks.change(
      target,
      changing.map((doc) => doc._id),
      restoring ? 'bulkRestore' : 'bulkTrash',
    );

    const at = new Date();
    const eventName = restoring ? 'document.restored' : 'document.deleted';
    const intents: EventIntent[] = changing.map((doc) => ({
      name: eventName,
      projectId: target.ref.projectId,
      collection: target.ref.collection,
      documentId: doc._id,
      at,
      actor: actorOf(target.caller),
    }));
    const intentOf = new Map(intents.map((intent) => [intent.documentId, intent]));
    const announcement = await events.announce(intents);
    const happened: ServiceEvent[] = [];
    let delta = 0;
    let failure: unknown;
    await inBatches(changing, PARALLEL, async (doc) => {
      const oid = toObjectId(doc._id)!;
      const filter: Record<string, unknown> & { _id: typeof oid } = { _id: oid };
      if (ownerId !== undefined) filter[owner] = { $eq: ownerId };
      try {
        const changed = restoring
          ? await repo.restore(target.ref, filter)
          : await repo.trash(target.ref, filter, at);
        if (!changed) {
          // Changed by another request between the read and this write.
          const message = restoring ? 'Document not found in the trash' : 'Document not found';
          results.set(doc._id, { id: doc._id, status: 'notFound', message });
          return;
        }
        delta += changed.delta;
        const out = toApi(changed.doc);
        const base = intentOf.get(doc._id)!;
        happened.push(restoring ? { ...base, document: out } : { ...base, document: null, removed: out });
        results.set(
          doc._id,
          restoring
            ? { id: doc._id, status: 'restored' }
            : { id: doc._id, status: 'trashed', deletedAt: at.toISOString() },
        );
      } catch (err) {
        // The unique index settles a race the check above lost: this one stays in the trash.
        if (err instanceof ApiError && err.status === 409) {
          results.set(doc._id, { id: doc._id, status: 'conflict', message: err.message });
        } else failure ??= err;
      }
    });
    // What was written is charged and announced even when a later write failed.
    if (delta !== 0) await quota.charge(target.caller.project, delta);
    await announcement.emit(happened);
    if (failure) throw failure;

    const counts: BulkOutcome['counts'] = { trashed: 0, restored: 0, notFound: 0, forbidden: 0, conflict: 0 };
    const ordered = ids.map((id) => results.get(id)!);
    for (const result of ordered) counts[result.status] += 1;
    return { results: ordered, counts };
  }

  return {
    /** Moves the named documents to the trash, each as `remove` would; per id what happened. */
    trashMany: (ctx: RequestContext, name: string, ids: unknown) => run(ctx, name, ids, 'trash'),
    /** Takes the named documents out of the trash, each as `restore` would. */
    restoreMany: (ctx: RequestContext, name: string, ids: unknown) => run(ctx, name, ids, 'restore'),
  };
}
