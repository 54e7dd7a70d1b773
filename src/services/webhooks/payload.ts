// What a webhook receives for an event: `{ id, event, timestamp, project, collection, documentId,
// document }`. A user document is cut to what its owner sees through the end-user API (never the
// password hash).
import { createHash } from 'node:crypto';
import type { ServiceEvent } from '../events.js';
import { SECRET_USER_FIELDS, userView } from '../user-auth/fields.js';

export const PING_EVENT = 'webhook.ping';

/** Stable per event, so writing its deliveries twice writes them once. */
export function eventKey(event: ServiceEvent): string {
  return createHash('sha256')
    .update(
      [event.name, event.projectId, event.collection, event.documentId, event.at.toISOString()].join('|'),
    )
    .digest('hex')
    .slice(0, 32);
}

const HIDDEN_USER_FIELDS = new Set([...SECRET_USER_FIELDS, 'passwordHash']);

function visibleDocument(event: ServiceEvent): Record<string, unknown> | null {
  if (!event.document) return null;
  if (event.collection !== 'users') return event.document;
  const view = userView(event.document);
  for (const key of HIDDEN_USER_FIELDS) delete view[key];
  return view;
}

export function eventPayload(event: ServiceEvent, key: string): string {
  return JSON.stringify({
    id: `evt_${key}`,
    event: event.name,
    timestamp: event.at.toISOString(),
    project: event.projectId,
    collection: event.collection,
    documentId: event.documentId,
    document: visibleDocument(event),
  });
}

export function pingPayload(projectId: string, webhookId: string, key: string, now: Date): string {
  return JSON.stringify({
    id: `evt_${key}`,
    event: PING_EVENT,
    timestamp: now.toISOString(),
    project: projectId,
    collection: null,
    documentId: null,
    document: null,
    webhookId,
  });
}
