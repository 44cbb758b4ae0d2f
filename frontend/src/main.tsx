import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App, queryClient } from './App';
import { prefetchFirstScreen } from './firstScreen';
import { inlineConfig, loadConfig } from './lib/config';
import './index.css';

const container = document.getElementById('root')!;

const app = (
  <StrictMode>
    <App />
  </StrictMode>
);

/**
 * Hydration that found the page differing from what the app renders. React
 * then renders that part again by itself, so the visitor still gets the page;
 * the count lets the browser tests prove that the gateway's cards equal React's.
 */
function hydrationMismatch(error: unknown) {
  window.__hydrationMismatches = (window.__hydrationMismatches ?? 0) + 1;
  console.warn('the pre-rendered page differed from the app:', error);
}

declare global {
  interface Window {
    __hydrationMismatches?: number;
  }
}

/** Runs `task` once the browser has painted the next frame, or at once in a hidden tab (which draws no frames). */
function afterNextPaint(task: () => void) {
  let done = false;
  const run = () => {
    if (!done) {
      done = true;
      task();
    }
  };
  requestAnimationFrame(() => setTimeout(run, 0));
  if (document.visibilityState === 'hidden') setTimeout(run, 0);
}

function start() {
  const inline = prefetchFirstScreen(queryClient, window.location.pathname, window.location.search);
  // A page the gateway pre-rendered and filled (gateway/src/first_screen/) is
  // hydrated when the app renders it from the same data: a signed-in visitor
  // asks the API, so their page is rendered afresh.
  if (inline && container.dataset.firstScreen === 'filled') {
    // The page is already on screen: hydrating it as a transition lets React
    // yield to the browser every few milliseconds (a phone's main thread is
    // not blocked for the whole page) and to a tap that comes meanwhile
    // (https://react.dev/reference/react-dom/client/hydrateRoot).
    // It waits for the page's first paint: Chromium may run a module that
    // has arrived by the end of parsing before it paints (1-2 loads in 9 in
    // docs/benchmarks.md), and the phone would then paint nothing until React
    // had finished; a frame later, the page shows as it was sent either way.
    afterNextPaint(() => {
      startTransition(() => {
        hydrateRoot(container, app, { onRecoverableError: hydrationMismatch });
      });
    });
  } else {
    createRoot(container).render(app);
  }
}

// The gateway puts the configuration in the page; `npm run dev` (and a page
// served without it) fetches `/config.json` first.
if (inlineConfig()) {
  start();
} else {
  loadConfig().then(start, (error: unknown) =>
    createRoot(container).render(<p role="alert">Error: {error instanceof Error ? error.message : String(error)}</p>),
  );
}
