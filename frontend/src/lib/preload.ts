/**
 * Runs `load` once the page has loaded and the browser is idle: a chunk split
 * off a page to keep its first load within the JS budget (scripts/budget.mjs)
 * is fetched before the visitor needs it, but never while the first screen's
 * requests and images are still coming (on mobile data such preloads took
 * bandwidth from the first product images).
 */
export function whenIdle(load: () => unknown): () => void {
  let cancel = () => {};
  const run = () => void load();
  const idle = () => {
    if (typeof window.requestIdleCallback === 'function') {
      const id = window.requestIdleCallback(run, { timeout: 3000 });
      cancel = () => window.cancelIdleCallback(id);
    } else {
      const id = window.setTimeout(run, 1500);
      cancel = () => window.clearTimeout(id);
    }
  };
  if (document.readyState === 'complete') {
    idle();
  } else {
    window.addEventListener('load', idle, { once: true });
    cancel = () => window.removeEventListener('load', idle);
  }
  return () => cancel();
}
