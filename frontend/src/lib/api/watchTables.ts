import { supabase } from '@/lib/supabase';

export type ChangeEvent = 'INSERT' | 'UPDATE' | 'DELETE' | '*';

/** One committed change the caller may see (RLS decides, on the gateway). */
export interface TableChange {
  table: string;
  type: Exclude<ChangeEvent, '*'>;
  /** The row after an insert or update; `{}` after a delete. */
  record: Record<string, unknown>;
  /** The row's primary key after an update or delete (all of it only without RLS). */
  old: Record<string, unknown>;
}

/**
 * Realtime `postgres_changes` on the public tables named, on one channel
 * (`/realtime/v1`; `alter publication supabase_realtime add table ...`,
 * sql/102_shop_realtime.sql). Shared by the store and the admin pages, hence
 * here and not in a feature. Returns what stops it. The WebSocket client
 * loads on the first call (src/lib/realtime-lazy.ts), after supabase-js
 * itself (src/lib/supabase.ts).
 */
export function watchTables(
  name: string,
  tables: readonly string[],
  onChange: (change: TableChange) => void,
  event: ChangeEvent = '*',
): () => void {
  let stop: (() => void) | undefined;
  let stopped = false;
  void supabase().then((client) => {
    if (stopped) return;
    let channel = client.channel(`shop:${name}`);
    for (const table of tables) {
      channel = channel.on('postgres_changes', { event, schema: 'public', table }, (payload) =>
        onChange({
          table: payload.table,
          type: payload.eventType,
          record: payload.new as Record<string, unknown>,
          old: payload.old as Record<string, unknown>,
        }),
      );
    }
    channel.subscribe();
    stop = () => void client.removeChannel(channel);
  });
  return () => {
    stopped = true;
    stop?.();
  };
}
