import * as RadixDialog from '@radix-ui/react-dialog';
import { X } from 'lucide-react';
import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { cn } from '@/lib/cn';

interface BaseProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: ReactNode;
  description?: ReactNode;
  children: ReactNode;
  className?: string;
}

/**
 * Radix hands focus back to a `Dialog.Trigger` on close; these dialogs are
 * opened by the page's own buttons (controlled `open`), so without this focus
 * would fall to <body>. The element focused as the dialog opens gets it back.
 * A layout effect runs before Radix's FocusScope moves focus inside.
 */
function useReturnFocus(open: boolean) {
  const opener = useRef<HTMLElement | null>(null);
  useLayoutEffect(() => {
    if (open && document.activeElement instanceof HTMLElement) opener.current = document.activeElement;
  }, [open]);
  return (event: Event) => {
    const element = opener.current;
    opener.current = null;
    if (element?.isConnected) {
      event.preventDefault();
      element.focus();
    }
  };
}

/**
 * Radix focuses the first focusable element, the header's close button; a
 * dialog with a form starts on its first field instead, so the keyboard is
 * where the typing goes; one without keeps Radix's choice.
 */
function focusFirstField(event: Event) {
  const content = event.currentTarget instanceof HTMLElement ? event.currentTarget : null;
  const field = content?.querySelector<HTMLElement>(
    'input:not([type="hidden"]):not([disabled]), select:not([disabled]), textarea:not([disabled])',
  );
  if (field) {
    event.preventDefault();
    field.focus();
  }
}

const overlay =
  'fixed inset-0 z-40 bg-slate-950/50 data-[state=open]:animate-fade-in motion-reduce:animate-none';

/**
 * A centred modal. Radix Dialog traps focus, closes on Escape and restores
 * focus to the trigger (https://www.radix-ui.com/primitives/docs/components/dialog).
 */
export function Dialog({ open, onOpenChange, title, description, children, className }: BaseProps) {
  const onCloseAutoFocus = useReturnFocus(open);
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className={overlay} />
        <RadixDialog.Content
          onCloseAutoFocus={onCloseAutoFocus}
          onOpenAutoFocus={focusFirstField}
          {...(description ? {} : { 'aria-describedby': undefined })}
          className={cn(
            'fixed left-1/2 top-1/2 z-50 flex max-h-[92dvh] w-[calc(100vw-1.5rem)] max-w-lg -translate-x-1/2 -translate-y-1/2',
            'flex-col overflow-hidden rounded-lg bg-white shadow-xl focus:outline-none',
            className,
          )}
        >
          <header className="flex items-start justify-between gap-4 border-b border-slate-200 px-5 py-4">
            <div>
              <RadixDialog.Title className="text-lg font-semibold text-slate-900">{title}</RadixDialog.Title>
              {description ? (
                <RadixDialog.Description className="mt-1 text-sm text-slate-600">{description}</RadixDialog.Description>
              ) : null}
            </div>
            <RadixDialog.Close
              aria-label="Cerrar"
              className="rounded-md p-1 text-slate-600 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-brand-700"
            >
              <X aria-hidden="true" className="h-5 w-5" />
            </RadixDialog.Close>
          </header>
          <div className="overflow-y-auto px-5 py-4">{children}</div>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}

/**
 * A panel that slides in from a side (product drawer from the right, menus
 * from the left or right). Under `prefers-reduced-motion` the slide is shorter.
 */
export function Sheet({ open, onOpenChange, title, description, children, className, side = 'right' }: BaseProps & { side?: 'left' | 'right' }) {
  const onCloseAutoFocus = useReturnFocus(open);
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className={overlay} />
        <RadixDialog.Content
          onCloseAutoFocus={onCloseAutoFocus}
          className={cn(
            'fixed inset-y-0 z-50 flex w-full max-w-md flex-col bg-white shadow-xl focus:outline-none',
            side === 'right'
              ? 'right-0 data-[state=open]:animate-slide-in-right'
              : 'left-0 data-[state=open]:animate-slide-in-left',
            'motion-reduce:data-[state=open]:animate-fade-in-fast',
            className,
          )}
        >
          <header className="flex items-center justify-between gap-4 border-b border-slate-200 px-5 py-4">
            <RadixDialog.Title className="text-lg font-semibold text-slate-900">{title}</RadixDialog.Title>
            <RadixDialog.Close
              aria-label="Cerrar"
              className="rounded-md p-1 text-slate-600 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-brand-700"
            >
              <X aria-hidden="true" className="h-5 w-5" />
            </RadixDialog.Close>
          </header>
          {description ? <RadixDialog.Description className="sr-only">{description}</RadixDialog.Description> : null}
          <div className="flex-1 overflow-y-auto px-5 py-4">{children}</div>
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}
