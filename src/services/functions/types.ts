// The record model of hooks and functions (one resource for both, docs/functions.md): what a
// project registers, the immutable versions of its definition, and what the write paths look up.
import type { InvocationStatus } from './runtime-types.js';

export const SYNC_TRIGGERS = [
  'beforeCreate',
  'beforeUpdate',
  'beforeDelete',
  'beforeSignUp',
  'tokenClaims',
] as const;
export const ASYNC_TRIGGERS = ['afterCreate', 'afterUpdate', 'afterDelete'] as const;
export const TRIGGER_TYPES = [...SYNC_TRIGGERS, ...ASYNC_TRIGGERS, 'callable', 'schedule'] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

/** Triggers that name one collection. */
export const COLLECTION_TRIGGERS: readonly TriggerType[] = [
  'beforeCreate',
  'beforeUpdate',
  'beforeDelete',
  'afterCreate',
  'afterUpdate',
  'afterDelete',
];

export type CallableAccess = 'public' | 'user' | 'secret';
export type FailurePolicy = 'closed' | 'open';

export interface FunctionTrigger {
  type: TriggerType;
  /** before and after triggers: the collection they watch. */
  collection?: string;
  /** callable: who may call it. */
  access?: CallableAccess;
  /** schedule: a five-field cron expression (UTC). */
  cron?: string;
}

export type FunctionRuntime =
  { type: 'http'; url: string } | { type: 'javascript'; code: string; privileged: boolean };

/** One immutable version: what an update writes, what activation selects. */
export interface FunctionVersion {
  version: number;
  /** SHA-256 (hex) of the canonical JSON of trigger, runtime and failure policy. */
  sha256: string;
  /** SHA-256 (hex) of the code (javascript only); the hosted runtime's cache key. */
  codeHash: string | null;
  trigger: FunctionTrigger;
  runtime: FunctionRuntime;
  failurePolicy: FailurePolicy;
  createdAt: Date;
}

export interface StoredFunction {
  id: string;
  projectId: string;
  name: string;
  enabled: boolean;
  /** The version in force (rollback = activate an older one). */
  activeVersion: number;
  latestVersion: number;
  /** The last 20, oldest first. */
  versions: FunctionVersion[];
  /** http: the Standard Webhooks signing secret, sealed. */
  signingSecretEnc: string | null;
  /** Env secrets by name, each sealed; write-only through the API. */
  envEnc: Record<string, string>;
  /**
   * The sealed values the env's last change removed or replaced: logs keep redacting them (a
   * module may have kept one in a variable), and no call gets them.
   */
  envRetiredEnc?: string[];
  /** Callables: calls per minute of this function, besides the project's request limit (null: none). */
  rateLimitPerMinute: number | null;
  /** Why the service (not its developer) left it disabled: a restore into a new project. */
  disabledReason?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** The active definition of a function: what an invocation runs. */
export interface ActiveFunction extends FunctionVersion {
  id: string;
  projectId: string;
  name: string;
  enabled: boolean;
}

/**
 * What a run was for, as the invocation log shows it: the client request that ran it (method and
 * path; absent for after-triggers and schedules, which run later in the worker), the operation,
 * collection and document it touched, and the caller. Never a body.
 */
export interface InvocationRequest {
  method: string | null;
  path: string | null;
  operation: string | null;
  collection: string | null;
  documentId: string | null;
  keyKind: 'publishable' | 'secret' | null;
  userId: string | null;
}

/** One entry of the invocation log (kept per plan days; request bodies are never stored). */
export interface InvocationRecord {
  id: string;
  projectId: string;
  functionId: string;
  trigger: TriggerType;
  version: number;
  status: InvocationStatus;
  durationMs: number;
  error: { message: string; stack?: string } | null;
  /** A hook's refusal (status `refused`): what the client was answered. Absent on older entries. */
  refusal?: { status: number; code: string; message: string } | null;
  /** Absent on entries written before it was recorded. */
  request?: InvocationRequest | null;
  logs: { level: string; message: string; atMs: number }[];
  at: Date;
  expiresAt: Date;
}

/** The circuit breaker of an HTTP hook, as every process sees it. */
export interface BreakerState {
  state: 'closed' | 'open' | 'halfOpen';
  consecutiveFailures: number;
  openedAt: string | null;
  /** While open: when the cool-down ends and one trial call goes through; null otherwise. */
  retryAt: string | null;
}

export const VERSIONS_KEPT = 20;
