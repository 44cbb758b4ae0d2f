import * as RadixToast from '@radix-ui/react-toast';
import { X } from 'lucide-react';
import { cn } from '@/lib/cn';
import { dismissToast, TOAST_DURATION_MS, type ShownToast } from './toast-store';

/** The toast on screen, with Radix's timer, swipe and live region. */
export default function ToastView({ shown }: { shown: ShownToast }) {
  return (
    <RadixToast.Provider duration={TOAST_DURATION_MS} swipeDirection="right" label="Notificación">
      <RadixToast.Root
        key={shown.id}
        open
        onOpenChange={(open) => !open && dismissToast(shown.id)}
        className={cn(
          'relative flex w-full items-start gap-3 rounded-lg border p-4 pr-10 shadow-lg',
          'data-[state=open]:animate-fade-in motion-reduce:animate-none',
          shown.variant === 'destructive' ? 'border-red-700 bg-red-700 text-white' : 'border-slate-200 bg-white text-slate-900',
        )}
      >
        <div>
          <RadixToast.Title className="text-sm font-semibold">{shown.title}</RadixToast.Title>
          {shown.description ? (
            <RadixToast.Description className="mt-1 text-sm opacity-90">{shown.description}</RadixToast.Description>
          ) : null}
        </div>
        <RadixToast.Close aria-label="Cerrar" className="absolute right-2 top-2 rounded-md p-1 opacity-80 hover:opacity-100">
          <X aria-hidden="true" className="h-4 w-4" />
        </RadixToast.Close>
      </RadixToast.Root>
      <RadixToast.Viewport className="fixed bottom-0 right-0 z-[100] flex w-full max-w-sm flex-col gap-2 p-4 outline-none" />
    </RadixToast.Provider>
  );
}
