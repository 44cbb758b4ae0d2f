import { supabase } from '@/lib/supabase';

/** Ends the session; the session provider then reports signed-out. */
export async function signOut(): Promise<void> {
  const { error } = await (await supabase()).auth.signOut();
  if (error) throw error;
}
