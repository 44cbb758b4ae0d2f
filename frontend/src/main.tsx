import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App, queryClient } from './App';
import { prefetchFirstScreen } from './firstScreen';
import { inlineConfig, loadConfig } from './lib/config';
import './index.css';

const root = createRoot(document.getElementById('root')!);

function start() {
  prefetchFirstScreen(queryClient, window.location.pathname, window.location.search);
  root.render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}

// The gateway puts the configuration in the page; `npm run dev` (and a page
// served without it) fetches `/config.json` first.
if (inlineConfig()) {
  start();
} else {
  loadConfig().then(start, (error: unknown) =>
    root.render(<p role="alert">Error: {error instanceof Error ? error.message : String(error)}</p>),
  );
}
