// The records of the AI tools: which key a request runs on, and Collection Creator sessions.

/** Where a request's provider key came from (SERVICE-SPEC resolution order). */
export type KeySource = 'project' | 'developer' | 'platform';

export interface ResolvedKey {
  readonly key: string;
  readonly source: KeySource;
}

export interface AiSessionMessage {
  role: 'user' | 'assistant';
  content: string;
  at: Date;
}

export interface AiSession {
  id: string;
  projectId: string;
  developerId: string;
  messages: AiSessionMessage[];
  /** The latest definition the model proposed, as the collections API checked it. */
  proposal: Record<string, unknown> | null;
  iterations: number;
  platformIterations: number;
  platformCharged: boolean;
  createdAt: Date;
  updatedAt: Date;
  expiresAt: Date;
}

/** The clock of the AI tools: monthly caps and session expiry read it (tests replace `now`). */
export interface Clock {
  now: () => Date;
}
