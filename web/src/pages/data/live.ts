// Live data: the member's stream of a collection's document events (dashboard API, session
// cookie). Each event refreshes the collection's pages (at most a few times a second); the
// returned state drives the grid's live indicator.
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { documentsKey } from '../../data/documents';

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'closed';

const EVENTS = ['document.created', 'document.updated', 'document.deleted', 'document.restored', 'reset'];
const REFRESH_MS = 250;

export function useLiveDocuments(projectId: string, name: string): LiveState {
  const client = useQueryClient();
  const [state, setState] = useState<LiveState>('connecting');
  useEffect(() => {
    if (typeof EventSource === 'undefined') {
      setState('closed');
      return;
    }
    setState('connecting');
    const source = new EventSource(
      `/api/projects/${encodeURIComponent(projectId)}/collections/${encodeURIComponent(name)}/stream`,
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        void client.invalidateQueries({ queryKey: documentsKey(projectId, name) });
      }, REFRESH_MS);
    };
    source.addEventListener('ready', () => setState('live'));
    for (const event of EVENTS) source.addEventListener(event, refresh);
    source.addEventListener('close', () => {
      source.close();
      setState('closed');
    });
    source.onerror = () => setState(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
    return () => {
      source.close();
      if (timer) clearTimeout(timer);
    };
  }, [client, projectId, name]);
  return state;
}
