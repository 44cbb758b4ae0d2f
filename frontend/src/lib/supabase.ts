import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { appConfig } from './config';

let client: SupabaseClient | undefined;

/**
 * The app's one supabase-js client: the publishable key, the session kept in
 * localStorage and refreshed automatically (spec section 6). Made on first use
 * because the URL and key arrive at run time.
 */
export function supabase(): SupabaseClient {
  if (!client) {
    const { supabaseUrl, supabaseKey } = appConfig();
    client = createClient(supabaseUrl, supabaseKey, {
      auth: { persistSession: true, autoRefreshToken: true, detectSessionInUrl: false },
    });
  }
  return client;
}
