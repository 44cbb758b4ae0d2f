/**
 * Runs `load` once the browser is idle: a chunk split off a page to keep its
 * first load within the JS budget (scripts/budget.mjs) is fetched before the
 * visitor needs it.
 */
export function whenIdle(load: () => unknown): () => void {
  const run = () => void load();
  if (typeof window.requestIdleCallback === 'function') {
    const id = window.requestIdleCallback(run, { timeout: 3000 });
    return () => window.cancelIdleCallback(id);
  }
  const id = window.setTimeout(run, 1500);
  return () => window.clearTimeout(id);
}
