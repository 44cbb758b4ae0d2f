import { lazy, Suspense, useSyncExternalStore } from 'react';
import { shownToast, subscribeToasts } from './toast-store';

export {
  currentToast,
  dismissToast,
  subscribeToasts,
  toast,
  TOAST_DURATION_MS,
  type ShownToast,
  type ToastMessage,
} from './toast-store';

// The Radix view loads with the first toast, keeping it off the public routes' first load.
const ToastView = lazy(() => import('./toast-view'));

const noToast = () => null;

/** Renders the current toast; mount once near the root. */
export function Toaster() {
  // No toast in a pre-rendered page (src/prerender.tsx).
  const shown = useSyncExternalStore(subscribeToasts, shownToast, noToast);
  if (!shown) return null;
  return (
    <Suspense fallback={null}>
      <ToastView shown={shown} />
    </Suspense>
  );
}
