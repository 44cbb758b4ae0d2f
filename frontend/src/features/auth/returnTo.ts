import type { ReturnTo } from '@/lib/session';
import { paths } from '@/paths';

/**
 * Where to go after signing in: the admin page the visitor was sent away from
 * (RequireSession's `ReturnTo`), else /admin. Only admin pages are accepted, so
 * a crafted state cannot send the visitor back to /auth or off the app.
 */
export function returnPath(state: unknown): string {
  const from = (state as ReturnTo | null)?.from;
  if (!from || typeof from.pathname !== 'string') return paths.admin;
  const { pathname } = from;
  if (pathname !== paths.admin && !pathname.startsWith(`${paths.admin}/`)) return paths.admin;
  return `${pathname}${from.search ?? ''}${from.hash ?? ''}`;
}
