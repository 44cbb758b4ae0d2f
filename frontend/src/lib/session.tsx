import type { Session } from '@supabase/supabase-js';
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { Navigate, useLocation } from 'react-router';
import { paths } from '@/paths';
import { hasStoredSession, isSessionKey, supabase, whenSupabaseLoaded, type ShopClient } from './supabase';

/** The three session states of spec section 4. */
export type SessionState =
  | { status: 'loading'; session: null }
  | { status: 'signed-out'; session: null }
  | { status: 'signed-in'; session: Session };

const SessionContext = createContext<SessionState>({ status: 'loading', session: null });

/**
 * Follows auth-js's session: INITIAL_SESSION settles the loading state, then
 * every SIGNED_IN, TOKEN_REFRESHED, USER_UPDATED and SIGNED_OUT replaces it.
 *
 * A browser that keeps no session is signed out without asking auth-js, so
 * the public pages do not load supabase-js for it (src/lib/supabase.ts); the
 * provider follows the client from whenever something loads it (a sign-in, a
 * page's request). A kept session loads it at once: it must be checked and
 * refreshed. So does a sign-in in another tab, which writes the session.
 */
export function SessionProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<SessionState>(() =>
    hasStoredSession() ? { status: 'loading', session: null } : { status: 'signed-out', session: null },
  );
  useEffect(() => {
    let unsubscribe: (() => void) | undefined;
    const follow = (client: ShopClient) => {
      const { data } = client.auth.onAuthStateChange((_event, session) => {
        // Signed out and still signed out is no change: a new value would
        // reach every consumer, and a pre-rendered page still hydrating would
        // be thrown away and rendered again (src/lib/prerender.tsx).
        setState((current) =>
          session
            ? { status: 'signed-in', session }
            : current.status === 'signed-out'
              ? current
              : { status: 'signed-out', session: null },
        );
      });
      unsubscribe = () => data.subscription.unsubscribe();
    };
    const cancel = whenSupabaseLoaded(follow);
    if (hasStoredSession()) void supabase();
    const onStorage = (event: StorageEvent) => {
      if (isSessionKey(event.key) && event.newValue) void supabase();
    };
    window.addEventListener('storage', onStorage);
    return () => {
      cancel();
      unsubscribe?.();
      window.removeEventListener('storage', onStorage);
    };
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
