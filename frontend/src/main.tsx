import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { loadConfig } from './lib/config';
import './index.css';

const root = createRoot(document.getElementById('root')!);

// The gateway's URL and anon key arrive at run time (`/config.json`).
loadConfig().then(
  () =>
    root.render(
      <StrictMode>
        <App />
      </StrictMode>,
    ),
  (error: unknown) => root.render(<p role="alert">Error: {error instanceof Error ? error.message : String(error)}</p>),
);
