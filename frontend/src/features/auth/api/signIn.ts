import { supabase } from '@/lib/supabase';

/** Auth: sign in with e-mail and password (spec section 7). Throws the server's message. */
export async function signIn(email: string, password: string): Promise<void> {
  const { error } = await (await supabase()).auth.signInWithPassword({ email, password });
  if (error) throw error;
}
