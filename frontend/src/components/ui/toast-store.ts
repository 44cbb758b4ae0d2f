/**
 * The toast store: what is on screen, and the calls that change it. Both
 * `toast.tsx` (the `toast()` API and the lazy `Toaster`) and `toast-view.tsx`
 * (the Radix view, loaded with the first toast) import it, so neither imports
 * the other.
 */

export interface ToastMessage {
  title: string;
  description?: string;
  variant?: 'default' | 'destructive';
}

/** How long a toast stays (spec section 9: the provider's 5000 ms). */
export const TOAST_DURATION_MS = 5000;

export interface ShownToast extends ToastMessage {
  id: number;
}

// One toast at a time (spec section 9): a new one replaces the current one.
let current: ShownToast | null = null;
let nextId = 1;
const listeners = new Set<() => void>();

function emit() {
  for (const listener of listeners) listener();
}

/** Shows a toast, replacing any toast on screen. */
export function toast(message: ToastMessage): void {
  current = { ...message, id: nextId++ };
  emit();
}

export function dismissToast(id: number) {
  if (current?.id === id) {
    current = null;
    emit();
  }
}

export function subscribeToasts(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The toast on screen, with its id (the `Toaster`'s snapshot). */
export function shownToast(): ShownToast | null {
  return current;
}

/** The toast currently on screen (tests). */
export function currentToast(): ToastMessage | null {
  return current;
}
