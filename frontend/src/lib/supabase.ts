import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { appConfig } from './config';
import type { Database } from './database.types';

let client: SupabaseClient<Database> | undefined;

/**
 * The app's one supabase-js client: the publishable key, the session kept in
 * localStorage and refreshed automatically (spec section 6). Made on first use
 * because the URL and key arrive at run time. Typed by the schema: `Database`
 * is what `gateway gen types typescript` prints for sql/, checked in, and a
 * test fails when the two part (docs/types.md).
 */
export function supabase(): SupabaseClient<Database> {
  if (!client) {
    const { supabaseUrl, supabaseKey } = appConfig();
    client = createClient<Database>(supabaseUrl, supabaseKey, {
      auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: false },
    });
  }
  return client;
}
