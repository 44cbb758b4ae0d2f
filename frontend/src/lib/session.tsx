import type { Session } from '@supabase/supabase-js';
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { paths } from '@/paths';
import { supabase } from './supabase';

/** The three session states of spec section 4. */
export type SessionState =
  | { status: 'loading'; session: null }
  | { status: 'signed-out'; session: null }
  | { status: 'signed-in'; session: Session };

const SessionContext = createContext<SessionState>({ status: 'loading', session: null });

/**
 * Follows auth-js's session: INITIAL_SESSION settles the loading state, then
 * every SIGNED_IN, TOKEN_REFRESHED, USER_UPDATED and SIGNED_OUT replaces it.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>({ status: 'loading', session: null });
  useEffect(() => {
    const { data } = supabase().auth.onAuthStateChange((_event, session) => {
      setState(session ? { status: 'signed-in', session } : { status: 'signed-out', session: null });
    });
    return () => data.subscription.unsubscribe();
  }, []);
  return <SessionContext.Provider value={state}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  return useContext(SessionContext);
}

/** Where `/auth` sends a visitor after signing in: the page they came from, else /admin. */
export interface ReturnTo {
  from?: { pathname: string; search?: string; hash?: string };
}

/**
 * Guards the admin area: signed-out visitors go to /auth, which remembers where
 * they were (spec section 2, Routes).
 */
export function RequireSession({ children, fallback }: { children: ReactNode; fallback: ReactNode }) {
  const state = useSession();
  const location = useLocation();
  if (state.status === 'loading') return fallback;
  if (state.status === 'signed-out') {
    const returnTo: ReturnTo = {
      from: { pathname: location.pathname, search: location.search, hash: location.hash },
    };
    return <Navigate to={paths.auth} replace state={returnTo} />;
  }
  return children;
}
