// Writing documents: create (one or a bulk of up to 100, all validated before any is written),
// update (set semantics, dot paths), move to trash and restore. Each write checks the key and RLS
// rules and the quota; its events are announced before it (durable listeners record intents, so a
// crash between the write and the event loses nothing) and emitted after success.
import { ApiError, badRequest, conflict, notFound, validationFailed } from '../../http/errors.js';
import { newId, toObjectId } from '../../db/ids.js';
import type { DocumentsRepo, StoredDocument } from '../../db/documents.js';
import type { RequestContext } from '../context.js';
import type { EventBus, EventIntent, EventName } from '../events.js';
import { validateDocument } from '../schema/validate-document.js';
import type { CollectionDef } from '../types.js';
import {
  applyOwner,
  assertMayChange,
  assertNoLookalikeOwner,
  documentId,
  openCollection,
  writeOwner,
  actorOf,
  type DefinitionLookup,
  type Target,
} from './access.js';
import type { DatabaseQuota } from './quota.js';
import { toApi, type ApiDocument } from './serialize.js';
import { applySet } from './update-preview.js';
import { inBulk, writeHooks, type DocumentWriteHooks } from './write-hooks.js';

export const MAX_BULK = 100;
const ACTIVE = { isDeleted: { $ne: true } };

/** Two documents of one bulk with the same value of a unique field would clash: 409 before writing. */
function assertUniqueWithin(def: CollectionDef, docs: Record<string, unknown>[]): void {
  for (const field of def.fields.filter((f) => f.unique)) {
    const seen = new Map<string, number>();
    docs.forEach((doc, i) => {
      const value = doc[field.name];
      if (value === undefined || value === null) return;
      const key = JSON.stringify(value instanceof Date ? value.getTime() : value);
      const first = seen.get(key);
      if (first !== undefined) {
        throw conflict(
          `Duplicate value for "${field.name}": documents ${first} and ${i} share it`,
          'DUPLICATE_VALUE',
          [{ path: `documents.${i}.${field.name}`, message: `${field.name} must be unique` }],
        );
      }
      seen.set(key, i);
    });
  }
}

export function documentWrites(
  repo: DocumentsRepo,
  definitions: DefinitionLookup,
  quota: DatabaseQuota,
  events: EventBus,
  hooks: DocumentWriteHooks = writeHooks(undefined),
) {
  const intent = (name: EventName, target: Target, documentId: string, at: Date): EventIntent => ({
    name,
    projectId: target.ref.projectId,
    collection: target.ref.collection,
    documentId,
    at,
    actor: actorOf(target.caller),
  });
  const happened = (announced: EventIntent, document: ApiDocument | null, removed?: ApiDocument) => ({
    ...announced,
    document,
    ...(removed ? { removed } : {}),
  });

  /** Validates a new document and completes it with its owner and system fields. */
  function prepare(target: Target, body: unknown, ownerId: string | undefined, now: Date) {
    const data = validateDocument(target.def, body, 'create');
    assertNoLookalikeOwner(target.def, Object.keys(data));
    applyOwner(target.def, data, ownerId);
    // `data` is validateDocument's own copy of the body: completed in place, not copied again.
    return Object.assign(data, { isDeleted: false, deletedAt: null, createdAt: now, updatedAt: now });
  }

  /** The stored, active document a write names, after the ownership check. */
  async function load(target: Target, id: string, ownerId: string | undefined, trashed = false) {
    const oid = toObjectId(documentId(id))!;
    const stored = await repo.findOne(target.ref, { _id: oid, isDeleted: trashed ? true : { $ne: true } });
    if (!stored) {
      throw notFound(
        trashed ? 'Document not found in the trash' : 'Document not found',
        'DOCUMENT_NOT_FOUND',
      );
    }
    assertMayChange(target.def, stored, undefined, ownerId);
    const filter: Record<string, unknown> & { _id: typeof oid } = { _id: oid };
    if (ownerId !== undefined) filter[target.def.rls.ownerField] = { $eq: ownerId };
    return { stored, filter };
  }

  /**
   * An update with no read before it, while the project's writes go through a quota lease (where
   * reserving more than needed is free): the reservation is a bound of what the `$set` can add,
   * and the filter holds the checks the read would make (active, owned by the token's user). The
   * owner field is left to the read path, which compares it with the stored value. Undefined
   * when this path does not apply, the bound does not fit (the exact path decides, as it would
   * without leases), or nothing matched (the read path tells a 404 from a 403).
   */
  async function updateUnread(
    target: Target,
    id: string,
    ownerId: string | undefined,
    set: Record<string, unknown>,
  ): Promise<{ doc: StoredDocument } | undefined> {
    const { def, caller, ref } = target;
    if (!quota.leasing(ref.projectId)) return undefined;
    const owner = def.rls.ownerField;
    if (def.rls.enabled && Object.keys(set).some((key) => key === owner || key.startsWith(`${owner}.`)))
      return undefined;
    const bound = repo.setGrowthBound(set);
    if (bound === undefined) return undefined;
    const filter: Record<string, unknown> = { _id: toObjectId(documentId(id))!, ...ACTIVE };
    if (ownerId !== undefined) filter[owner] = { $eq: ownerId };
    try {
      return await quota.within(
        caller.project,
        bound,
        () => repo.setKept(ref, filter, set, (before) => applySet(before, set)),
        (result) => result?.delta ?? 0,
      );
    } catch (err) {
      if (err instanceof ApiError && err.code === 'QUOTA_EXCEEDED') return undefined;
      throw err;
    }
  }

  /** Before a restore: a unique value of the document taken by an active one meanwhile is a 409. */
  async function assertUniqueFree(target: Target, stored: StoredDocument): Promise<void> {
    for (const field of target.def.fields.filter((f) => f.unique)) {
      const value = stored[field.name];
      if (value === undefined || value === null) continue;
      const clash = await repo.findOne(
        target.ref,
        { [field.name]: { $eq: value }, _id: { $ne: toObjectId(stored._id) }, ...ACTIVE },
        { _id: 1 },
      );
      if (clash) {
        throw conflict(
          `Cannot restore: the value of "${field.name}" is now used by another document`,
          'DUPLICATE_VALUE',
          [{ path: field.name, message: `${field.name} must be unique` }],
        );
      }
    }
  }

  return {
    async create(ctx: RequestContext, name: string, body: unknown): Promise<ApiDocument> {
      const target = await openCollection(ctx, name, definitions);
      const ownerId = writeOwner(target);
      const [input] = await hooks.create(target, [body], false);
      const now = new Date();
      const doc = prepare(target, input, ownerId, now);
      // The size measured before the insert is the stored one (the document plus its `_id`).
      const size = repo.sizeOf(doc);
      // The id is chosen before the write, so the event's intent can name the document.
      const created = intent('document.created', target, newId(), now);
      const { result: saved, announcement } = await events.announced([created], () =>
        quota.within(
          target.caller.project,
          size,
          () => repo.insertOne(target.ref, doc, created.documentId),
          () => size,
        ),
      );
      const out = toApi(saved.doc);
      await announcement.emit([happened(created, out)]);
      return out;
    },

    async createMany(ctx: RequestContext, name: string, bodies: unknown[]): Promise<ApiDocument[]> {
      const target = await openCollection(ctx, name, definitions);
      const ownerId = writeOwner(target);
      if (!Array.isArray(bodies) || bodies.length === 0 || bodies.length > MAX_BULK) {
        throw badRequest(
          `Validation failed: documents must hold 1 to ${MAX_BULK} documents`,
          undefined,
          'VALIDATION_FAILED',
        );
      }
      const inputs = await hooks.create(target, bodies, true);
      const now = new Date();
      const docs = inputs.map((body, i) => {
        try {
          return prepare(target, body, ownerId, now);
        } catch (err) {
          inBulk(err, i);
        }
      });
      assertUniqueWithin(target.def, docs);
      const size = docs.reduce((sum, doc) => sum + repo.sizeOf(doc), 0);
      const created = docs.map(() => intent('document.created', target, newId(), now));
      const { result: saved, announcement } = await events.announced(created, () =>
        quota.within(
          target.caller.project,
          size,
          () =>
            repo.insertMany(
              target.ref,
              docs,
              created.map((c) => c.documentId),
            ),
          () => size,
        ),
      );
      const out = saved.docs.map(toApi);
      await announcement.emit(out.map((doc, i) => happened(created[i]!, doc)));
      return out;
    },

    async update(ctx: RequestContext, name: string, id: string, body: unknown): Promise<ApiDocument> {
      const target = await openCollection(ctx, name, definitions);
      documentId(id);
      const ownerId = writeOwner(target);
      const changes = validateDocument(
        target.def,
        await hooks.update(target, documentId(id), body),
        'update',
      );
      if (Object.keys(changes).length === 0) {
        throw validationFailed('Validation failed: the body names no field to change', [
          { path: 'body', message: 'body names no field to change' },
        ]);
      }
      assertNoLookalikeOwner(target.def, Object.keys(changes));
      const set = { ...changes, updatedAt: new Date() };
      const updated = intent('document.updated', target, documentId(id), set.updatedAt);
      const { result: saved, announcement } = await events.announced([updated], async () => {
        const inPlace = await updateUnread(target, id, ownerId, set);
        if (inPlace) return inPlace;
        const { stored, filter } = await load(target, id, ownerId);
        assertMayChange(target.def, stored, changes, ownerId);
        // Reserved by what the read document says; charged by what the atomic write really
        // changed (the document may have changed since it was read).
        return quota.within(
          target.caller.project,
          repo.sizeOf(applySet(stored, set)) - repo.sizeOf(stored),
          async () => {
            const result = await repo.setKept(target.ref, { ...filter, ...ACTIVE }, set, (doc) =>
              applySet(doc, set),
            );
            if (!result) throw notFound('Document not found', 'DOCUMENT_NOT_FOUND');
            return result;
          },
          (result) => result.delta,
        );
      });
      const out = toApi(saved.doc);
      await announcement.emit([happened(updated, out)]);
      return out;
    },

    async remove(ctx: RequestContext, name: string, id: string): Promise<{ id: string; deletedAt: string }> {
      const target = await openCollection(ctx, name, definitions);
      documentId(id);
      const { stored, filter } = await load(target, id, writeOwner(target));
      await hooks.change(target, [String(stored._id)], 'trash');
      const deletedAt = new Date();
      const deleted = intent('document.deleted', target, String(stored._id), deletedAt);
      // The trash marker takes the document out of the unique indexes (db/project-indexes.ts).
      const { result: trashed, announcement } = await events.announced([deleted], async () => {
        const result = await repo.trash(target.ref, filter, deletedAt);
        if (!result) throw notFound('Document not found', 'DOCUMENT_NOT_FOUND');
        return result;
      });
      await quota.charge(target.caller.project, trashed.delta);
      await announcement.emit([happened(deleted, null, toApi(trashed.doc))]);
      return { id: trashed.doc._id, deletedAt: deletedAt.toISOString() };
    },

    async restore(ctx: RequestContext, name: string, id: string): Promise<ApiDocument> {
      const target = await openCollection(ctx, name, definitions);
      documentId(id);
      const { stored, filter } = await load(target, id, writeOwner(target), true);
      // Checked first for a message naming the field; the unique index settles a race.
      await assertUniqueFree(target, stored);
      await hooks.change(target, [String(stored._id)], 'restore');
      const back = intent('document.restored', target, String(stored._id), new Date());
      const { result: restored, announcement } = await events.announced([back], async () => {
        const result = await repo.restore(target.ref, filter);
        if (!result) throw notFound('Document not found in the trash', 'DOCUMENT_NOT_FOUND');
        return result;
      });
      await quota.charge(target.caller.project, restored.delta);
      const out = toApi(restored.doc);
      await announcement.emit([happened(back, out)]);
      return out;
    },
  };
}

export type DocumentWrites = ReturnType<typeof documentWrites>;
