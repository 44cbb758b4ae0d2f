import type { SupabaseClient } from '@supabase/supabase-js';
import { appConfig } from './config';
import type { Database } from './database.types';

export type ShopClient = SupabaseClient<Database>;

let client: Promise<ShopClient> | undefined;
const waiting: ((client: ShopClient) => void)[] = [];
let heldUntil: Promise<unknown> = Promise.resolve();

/**
 * The app's one supabase-js client: the publishable key, the session kept in
 * localStorage and refreshed automatically (spec section 6). Typed by the
 * schema: `Database` is what `gateway gen types typescript` prints for sql/,
 * checked in, and a test fails when the two part (docs/types.md).
 *
 * supabase-js is a chunk of its own, loaded on the first call: with auth-js,
 * postgrest-js and storage-js it is about 40 KB gzipped, which the public
 * pages do not need before their first card (the gateway puts the catalogue
 * into the page, src/firstScreen.ts), nor at all while nobody signs in
 * (src/lib/session.tsx). Still one client: every caller awaits the same one.
 */
export function supabase(): Promise<ShopClient> {
  client ??= heldUntil.then(() => import('@supabase/supabase-js')).then(({ createClient }) => {
    const { supabaseUrl, supabaseKey } = appConfig();
    const made = createClient<Database>(supabaseUrl, supabaseKey, {
      auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: false },
    });
    for (const notify of waiting.splice(0)) notify(made);
    return made;
  });
  return client;
}

/**
 * Holds supabase-js back until `until` settles, however it settles: a page
 * that shows its first screen from the data inline in it (src/firstScreen.ts)
 * lets the first cards' pictures have the phone's bandwidth before the 40 KB
 * client, which the page then needs only for its filters' lists and live
 * updates. Requests wait for it; nothing is lost.
 */
export function holdSupabaseUntil(until: Promise<unknown>): void {
  heldUntil = until.catch(() => undefined);
}

/**
 * Calls `then` with the client once someone has loaded it, without loading it:
 * for whoever follows the client's state (the session) but has no reason to
 * make it exist. Returns what cancels the wait.
 */
export function whenSupabaseLoaded(then: (client: ShopClient) => void): () => void {
  let cancelled = false;
  const call = (made: ShopClient) => {
    if (!cancelled) then(made);
  };
  if (client) void client.then(call);
  else waiting.push(call);
  return () => {
    cancelled = true;
  };
}

/**
 * Whether a session is kept in this browser, looked for where supabase-js
 * keeps it (`sb-<ref>-auth-token` in localStorage, auth-js's default
 * `storageKey`: https://github.com/supabase/supabase-js/blob/master/packages/core/supabase-js/src/SupabaseClient.ts)
 * without loading the client.
 */
export function hasStoredSession(): boolean {
  try {
    for (let i = 0; i < localStorage.length; i++) {
      if (isSessionKey(localStorage.key(i))) return true;
    }
    return false;
  } catch {
    // Storage refused (a private mode): no session can be kept either.
    return false;
  }
}

/** Whether `key` is where supabase-js keeps a session in localStorage. */
export function isSessionKey(key: string | null): boolean {
  return /^sb-.*-auth-token$/.test(key ?? '');
}
