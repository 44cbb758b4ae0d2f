import { cn } from '@/lib/cn';

/** A grey placeholder block while data loads. */
export function Skeleton({ className }: { className?: string }) {
  return <div aria-hidden="true" className={cn('animate-pulse rounded-md bg-slate-200 motion-reduce:animate-none', className)} />;
}

/** A spinning ring with an accessible name. */
export function Spinner({ label = 'Cargando...', className }: { label?: string; className?: string }) {
  return (
    <div role="status" className={cn('flex items-center justify-center', className)}>
      <span
        aria-hidden="true"
        className="h-8 w-8 animate-spin rounded-full border-4 border-slate-200 border-t-brand-700 motion-reduce:animate-none"
      />
      <span className="sr-only">{label}</span>
    </div>
  );
}
