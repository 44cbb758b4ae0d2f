import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { ConsoleApp } from './ConsoleApp';
import '../index.css';

createRoot(document.getElementById('console')!).render(
  <StrictMode>
    <ConsoleApp />
  </StrictMode>,
);
