import { supabase } from '@/lib/supabase';

/** How many products there are in all (Counts: products head count total). */
export async function countProducts(): Promise<number> {
  const { count, error } = await (await supabase()).from('products').select('*', { count: 'exact', head: true });
  if (error) throw new Error(error.message);
  return count ?? 0;
}
