// Pages that sent credentials a project did not grant (src/http/cors.ts): each origin is noted on
// the project, for the dashboard's overview and Settings to name with a one-click add. Called on
// the request path, so it costs a map lookup: an origin is written at most once per interval per
// process, never awaited, and the map of what was written is bounded.
import type { Logger } from '../lib/logger.js';
import type { Project } from './types.js';

/** How often one origin of one project is written again while its pages keep calling. */
export const NOTICE_INTERVAL_MS = 10 * 60_000;
/** Origins kept per project (the most recent). */
export const NOTICES_KEPT = 5;
const MAX_REMEMBERED = 10_000;

export function originNotices(deps: {
  note: (projectId: string, origin: string, at: Date, keep: number) => Promise<void>;
  log: Logger;
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;
  /** `projectId origin` -> when it was last written. */
  const written = new Map<string, number>();
  return {
    credentialsRefused(project: Project, origin: string): void {
      const key = `${project.id} ${origin}`;
      const at = now();
      const last = written.get(key);
      if (last !== undefined && at - last < NOTICE_INTERVAL_MS) return;
      if (last === undefined && written.size >= MAX_REMEMBERED) written.delete(written.keys().next().value!);
      written.set(key, at);
      deps
        .note(project.id, origin, new Date(at), NOTICES_KEPT)
        .catch((err: unknown) => deps.log.warn({ err }, 'a refused credential origin was not noted'));
    },
  };
}

export type OriginNotices = ReturnType<typeof originNotices>;
