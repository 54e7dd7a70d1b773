// The records the services work with. Ids are strings (hex object ids) everywhere above src/db;
// the data layer converts. Secrets (password hashes, key hashes, encrypted values) never leave
// src/db and the services that need them.

/** A plan of the installation (src/lib/plan-table.ts): `free` and `pro` unless the operator defines others. */
export type PlanName = string;

export interface Developer {
  id: string;
  email: string;
  name: string | null;
  plan: PlanName;
  isOperator: boolean;
  /** The operator disabled the account: it cannot sign in or use a token. */
  disabled: boolean;
  /** An AI provider key is stored for the account (the key itself never leaves src/db and the AI service). */
  hasAiProviderKey: boolean;
  createdAt: Date;
  updatedAt: Date;
}

export type MemberRole = 'admin' | 'member';

export interface ProjectMember {
  developerId: string;
  role: MemberRole;
  addedAt: Date;
}

export type KeyKind = 'publishable' | 'secret';

/** What is kept of an API key besides its hash: enough to recognise it in a list. */
export interface ApiKeyInfo {
  last4: string;
  createdAt: Date;
}

export interface ProjectSettings {
  /** Origins allowed to use the publishable key from a browser; empty = any. */
  allowedOrigins: string[];
  endUserAuth: boolean;
  siteUrl: string | null;
}

export interface ProjectUsage {
  /** BSON bytes of stored documents (trashed ones count until purged). */
  databaseUsed: number;
  storageUsed: number;
}

export interface PlanLimits {
  projectsPerDeveloper: number;
  collectionsPerProject: number;
  databaseBytes: number;
  storageBytes: number;
  /** Bytes the project's kept backups (done archives) may take in all; a backup past it fails. */
  backupBytes: number;
  requestsPerMinute: number;
  mailPerMonth: number;
  webhooksPerProject: number;
  /** Indexes a developer may declare on one collection (unique fields and the RLS owner index aside). */
  indexesPerCollection: number;
  /** Open realtime streams of the project at one time, across every process. */
  realtimeConnectionsPerProject: number;
  /** Hooks and functions (docs/functions.md): how many a project registers. */
  functionsPerProject: number;
  /** Hosted code of one version, in bytes (UTF-8). */
  functionCodeBytes: number;
  /** Deadline of one invocation (an HTTP hook's whole exchange, or a hosted run), wall clock. */
  functionDeadlineMs: number;
  /** Heap of one hosted invocation. */
  functionMemoryBytes: number;
  /** Invocations of the project running at one time, across every process. */
  functionConcurrency: number;
  functionInvocationsPerMonth: number;
  /**
   * Invocations one caller of the publishable key (a client IP, and an end user when signed in)
   * may start per day, counted before the project's month (docs/functions.md, "Limits").
   */
  functionInvocationsPerCallerPerDay: number;
  /** ctx.fetch calls of one hosted invocation. */
  functionFetchesPerInvocation: number;
  /** ctx.db calls (reads and writes) of one hosted invocation. */
  functionDbCallsPerInvocation: number;
  /** Captured console output of one hosted invocation, in bytes (cut past it, marked). */
  functionLogBytesPerInvocation: number;
  /** The shortest interval a scheduled function's cron expression may have. */
  functionCronMinSeconds: number;
  /** Env secrets of one function. */
  functionSecrets: number;
  /** Days the invocation log keeps an entry. */
  functionLogDays: number;
  aiQueryBuilderPerMonth: number;
  aiCollectionCreatorPerMonth: number;
  externalDatabase: boolean;
  externalStorage: boolean;
  ownMailKey: boolean;
  customMailTemplates: boolean;
  ownAiKey: boolean;
}

export interface Project {
  id: string;
  name: string;
  ownerId: string;
  members: ProjectMember[];
  settings: ProjectSettings;
  keys: Record<KeyKind, ApiKeyInfo>;
  /** Operator overrides of the plan's limits. */
  limits: Partial<PlanLimits>;
  usage: ProjectUsage;
  /** An AI provider key is stored for the project (never the key itself). */
  hasAiProviderKey: boolean;
  /** A restore over the project is queued or running: this job's id (docs/backups.md). */
  restoringId?: string;
  /** Pages that sent credentials the project did not grant, newest last (services/origin-notices.ts). */
  credentialsRefused?: { origin: string; at: Date }[];
  createdAt: Date;
  updatedAt: Date;
}

export type FieldType = 'String' | 'Number' | 'Boolean' | 'Date' | 'Object' | 'Array' | 'Ref';

export interface FieldDef {
  name: string;
  type: FieldType;
  required?: boolean;
  unique?: boolean;
  /** Only on non-required String, Number and Boolean fields, of the field's type. */
  default?: string | number | boolean;
  /** Object: its sub-fields (nesting up to 3 levels). */
  fields?: FieldDef[];
  /** Array: the type of its items. */
  items?: { type: Exclude<FieldType, 'Array'>; fields?: FieldDef[]; ref?: string };
  /** Ref: the name of the target collection. */
  ref?: string;
  /** users only: end users cannot write it (sign-up, update-profile); the secret key and admins can. */
  protected?: boolean;
  /** users only: shown to the user themself and to the secret key, to no one else (populate, public profile). */
  private?: boolean;
}

export type CollectionMode = 'flexible' | 'schema';
export type RlsMode = 'public-read' | 'private';

export interface RlsSettings {
  enabled: boolean;
  mode: RlsMode;
  /** A String or Ref field of the schema; `userId` by default. */
  ownerField: string;
}

/** One key of a declared index: a field path (dots for nested fields) and its order. */
export interface IndexKey {
  field: string;
  direction: 1 | -1;
}

/** An index the developer declared on a collection (`i_<name>` in the project database). */
export interface IndexDef {
  name: string;
  keys: IndexKey[];
  unique: boolean;
  /** TTL: a document expires this many seconds after the Date in its single key's field. */
  expireAfterSeconds?: number;
  createdAt: Date;
}

export interface CollectionDef {
  id: string;
  projectId: string;
  name: string;
  mode: CollectionMode;
  fields: FieldDef[];
  rls: RlsSettings;
  /** Declared indexes; absent on definitions stored before indexes could be declared. */
  indexes?: IndexDef[];
  createdAt: Date;
  updatedAt: Date;
}
