// What a webhook receives for an event: `{ id, event, timestamp, project, collection, documentId,
// document }`. A user document is cut to what its owner sees through the end-user API (never the
// password hash). A payload over the cap goes without its document (`document: null, truncated:
// true`): the receiver reads the document by its id.
import { createHash } from 'node:crypto';
import type { ServiceEvent } from '../events.js';
import { SECRET_USER_FIELDS, userView } from '../user-auth/fields.js';

export const PING_EVENT = 'webhook.ping';

/** Stable per event, so writing its deliveries twice writes them once. */
export function eventKey(
  event: Pick<ServiceEvent, 'name' | 'projectId' | 'collection' | 'documentId' | 'at'>,
): string {
  return createHash('sha256')
    .update(
      [event.name, event.projectId, event.collection, event.documentId, event.at.toISOString()].join('|'),
    )
    .digest('hex')
    .slice(0, 32);
}

const HIDDEN_USER_FIELDS = new Set([...SECRET_USER_FIELDS, 'passwordHash']);

function visibleDocument(
  event: Pick<ServiceEvent, 'collection' | 'document'>,
): Record<string, unknown> | null {
  if (!event.document) return null;
  if (event.collection !== 'users') return event.document;
  const view = userView(event.document);
  for (const key of HIDDEN_USER_FIELDS) delete view[key];
  return view;
}

type EventFacts = Pick<ServiceEvent, 'name' | 'projectId' | 'collection' | 'documentId' | 'document' | 'at'>;

export function eventPayload(event: EventFacts, key: string, maxBytes = Infinity): string {
  const envelope = {
    id: `evt_${key}`,
    event: event.name,
    timestamp: event.at.toISOString(),
    project: event.projectId,
    collection: event.collection,
    documentId: event.documentId,
  };
  const body = JSON.stringify({ ...envelope, document: visibleDocument(event) });
  // String length is a lower bound of the UTF-8 size: most bodies skip the exact count.
  if (body.length * 3 <= maxBytes || Buffer.byteLength(body) <= maxBytes) return body;
  return JSON.stringify({ ...envelope, document: null, truncated: true });
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
