// Who is logged in: loaded once from GET /api/user/me, shared with every page.
import { createContext, useContext } from 'react';
import type { Developer } from './api';

export interface Session {
  developer: Developer | null;
  refresh: () => Promise<void>;
}

export const SessionContext = createContext<Session>({ developer: null, refresh: async () => undefined });
export const useSession = () => useContext(SessionContext);
