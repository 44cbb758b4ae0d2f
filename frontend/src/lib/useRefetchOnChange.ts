import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { useEffect } from 'react';
import { watchTables } from '@/lib/api/watchTables';

/** Changes that land together (one save touching several rows) refetch once. */
const SETTLE_MS = 250;

/**
 * Keeps an admin page current while another staff member edits: any change to
 * `tables` marks the queries under `queryKey` stale, and TanStack Query
 * refetches the ones on screen.
 */
export function useRefetchOnChange(name: string, tables: readonly string[], queryKey: QueryKey): void {
  const queryClient = useQueryClient();
  const tableList = tables.join(',');
  const keyText = JSON.stringify(queryKey);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const key = JSON.parse(keyText) as QueryKey;
    const stop = watchTables(name, tableList.split(','), () => {
      clearTimeout(timer);
      timer = setTimeout(() => void queryClient.invalidateQueries({ queryKey: key }), SETTLE_MS);
    });
    return () => {
      clearTimeout(timer);
      stop();
    };
  }, [name, tableList, keyText, queryClient]);
}
