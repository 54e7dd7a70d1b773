// Who may do what on a collection (SERVICE-SPEC "Authentication", PUT/PATCH; DECISIONS §3): the
// reserved `users` collection, the publishable key (reads; writes only under RLS with a Bearer
// token), the secret key (everything, RLS bypassed) and the owner rules of RLS.
import { badRequest, forbidden, notFound, unauthorized } from '../../http/errors.js';
import { isObjectId } from '../../db/ids.js';
import type { RequestContext } from '../context.js';
import type { CollectionDef, KeyKind, Project } from '../types.js';
import type { Condition } from './filters.js';
import type { EventActor } from '../events.js';

export const USERS_COLLECTION = 'users';
export const OWNER_IMMUTABLE = 'Owner field immutable';

export interface Caller {
  project: Project;
  keyKind: KeyKind;
  /** The end user of a valid Bearer token, if one was sent. */
  userId?: string;
  /** Set when a hosted function's ctx.db makes the call (RequestContext.functionDepth): hooks it runs go one deeper. */
  functionDepth?: number;
  /** The client's address (empty for a function's ctx.db call): counted by the functions' per-caller budget. */
  ip?: string;
  /** The client's request (method, path): a hook's invocation log entry names it. */
  request?: { method: string; path: string };
}

export interface Target {
  def: CollectionDef;
  caller: Caller;
  ref: { projectId: string; collection: string };
}

export type DefinitionLookup = (projectId: string, name: string) => Promise<CollectionDef | undefined>;

export function callerOf(ctx: RequestContext): Caller {
  const { project, keyKind, endUser } = ctx.principal;
  if (!project || !keyKind) throw unauthorized('Missing API key', 'MISSING_API_KEY');
  const userId = endUser?.projectId === project.id ? endUser.id : undefined;
  return {
    project,
    keyKind,
    userId,
    ip: ctx.ip,
    request: ctx.request,
    ...(ctx.functionDepth ? { functionDepth: ctx.functionDepth } : {}),
  };
}

/** Who a change's events name as its maker: the after-triggers run with these rights. */
export const actorOf = (caller: Caller): EventActor => ({
  keyKind: caller.keyKind,
  userId: caller.userId ?? null,
  depth: caller.functionDepth ?? 0,
});

export function usersBlocked(): never {
  throw forbidden(
    'The users collection cannot be reached through /api/data; use the /api/userAuth endpoints',
    'USERS_COLLECTION',
  );
}

/** The registered collection a request names: 403 for `users`, 404 when not registered. */
export async function openCollection(
  ctx: RequestContext,
  name: string,
  definitions: DefinitionLookup,
): Promise<Target> {
  if (name === USERS_COLLECTION) usersBlocked();
  const caller = callerOf(ctx);
  const def = await definitions(caller.project.id, name);
  if (!def) throw notFound(`Collection "${name}" not found`, 'COLLECTION_NOT_FOUND');
  return { def, caller, ref: { projectId: caller.project.id, collection: def.name } };
}

export function documentId(id: string): string {
  if (!isObjectId(id))
    throw badRequest(
      'Invalid document ID',
      [{ path: 'params.id', message: 'id must be an object id of 24 hex characters' }],
      'INVALID_ID',
    );
  return id.toLowerCase();
}

const needsToken = (what: string) =>
  unauthorized(`A Bearer token is required to ${what} this collection`, 'MISSING_TOKEN');

/** The condition reads are limited to: only the token user's documents in private RLS mode. */
export function readScope({ def, caller }: Pick<Target, 'def' | 'caller'>): Condition | undefined {
  if (caller.keyKind === 'secret' || !def.rls.enabled || def.rls.mode !== 'private') return undefined;
  if (!caller.userId) throw needsToken('read');
  return { [def.rls.ownerField]: { $eq: caller.userId } };
}

/** Aggregations are scoped to the owner whenever RLS is on and the key is publishable (spec). */
export function aggregateScope({ def, caller }: Pick<Target, 'def' | 'caller'>): Condition | undefined {
  if (caller.keyKind === 'secret' || !def.rls.enabled) return undefined;
  if (!caller.userId) throw needsToken('aggregate');
  return { [def.rls.ownerField]: { $eq: caller.userId } };
}

/**
 * May the caller write? Returns the user the written documents must belong to (publishable key
 * under RLS), or undefined for the secret key. 403 for the publishable key without RLS, 401 when
 * the Bearer token is missing.
 */
export function writeOwner({ def, caller }: Target): string | undefined {
  if (caller.keyKind === 'secret') return undefined;
  if (!def.rls.enabled) {
    throw forbidden(
      'The publishable key can only read this collection; writes need the secret key, or row-level security with a user token',
      'PUBLISHABLE_KEY_READ_ONLY',
    );
  }
  if (!caller.userId) throw needsToken('write to');
  return caller.userId;
}

/**
 * Under RLS, a key that is not the owner field but reads like it (another case) is refused, so
 * that no look-alike key can pass for the owner (padded keys are refused by the name rules).
 */
export function assertNoLookalikeOwner(def: CollectionDef, keys: string[]): void {
  if (!def.rls.enabled) return;
  const owner = def.rls.ownerField;
  for (const key of keys) {
    const first = key.split('.')[0]!;
    if (first !== owner && first.trim().toLowerCase() === owner.toLowerCase()) {
      throw badRequest(
        `Invalid field name "${key}": it differs from the owner field "${owner}" only by case`,
        [{ path: key, message: `${key} looks like the owner field ${owner}` }],
        'OWNER_FIELD_LOOKALIKE',
      );
    }
  }
}

export const ownerMismatch = () => forbidden('This document belongs to another user', 'OWNER_MISMATCH');

/** Sets or checks the owner of a new document written with the publishable key under RLS. */
export function applyOwner(
  def: CollectionDef,
  data: Record<string, unknown>,
  ownerId: string | undefined,
): void {
  if (!def.rls.enabled) return;
  const owner = def.rls.ownerField;
  if (ownerId === undefined) return;
  if (data[owner] === undefined || data[owner] === null) data[owner] = ownerId;
  else if (data[owner] !== ownerId) {
    throw forbidden(`The owner field ${owner} must be the id of the authenticated user`, 'OWNER_MISMATCH');
  }
}

/** Checks an update against the stored document: ownership (publishable key) and the owner field. */
export function assertMayChange(
  def: CollectionDef,
  stored: Record<string, unknown>,
  changes: Record<string, unknown> | undefined,
  ownerId: string | undefined,
): void {
  if (!def.rls.enabled) return;
  const owner = def.rls.ownerField;
  if (ownerId !== undefined && stored[owner] !== ownerId) throw ownerMismatch();
  for (const key of Object.keys(changes ?? {})) {
    const changesOwner = key === owner ? changes![key] !== stored[owner] : key.startsWith(`${owner}.`);
    if (changesOwner) throw forbidden(OWNER_IMMUTABLE, 'OWNER_IMMUTABLE');
  }
}
