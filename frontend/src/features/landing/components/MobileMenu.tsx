import type { MouseEvent } from 'react';
import { Link } from 'react-router';
import { buttonClasses } from '@/components/ui/button';
import { Sheet } from '@/components/ui/dialog';
import { paths } from '@/paths';
import { landingMenu } from './landingMenu';

/** The slide-in menu of small screens; Radix traps focus while it is open. */
export function MobileMenu({ open, onOpenChange }: { open: boolean; onOpenChange: (open: boolean) => void }) {
  // The sheet gives focus back to its trigger as it closes; the section is
  // scrolled to and focused after that, so keyboard users land on it.
  function go(event: MouseEvent<HTMLAnchorElement>, id: string) {
    event.preventDefault();
    onOpenChange(false);
    window.setTimeout(() => {
      const target = document.getElementById(id);
      target?.scrollIntoView();
      target?.focus({ preventScroll: true });
    }, 50);
  }

  return (
    <Sheet open={open} onOpenChange={onOpenChange} title="Menú" description="Secciones de la página y la tienda" side="left" className="max-w-xs">
      <nav aria-label="Secciones">
        <ul className="flex flex-col gap-1">
          {landingMenu.map((item) => (
            <li key={item.id}>
              <a
                href={`#${item.id}`}
                onClick={(event) => go(event, item.id)}
                className="block rounded-md px-3 py-3 text-base font-medium text-slate-800 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-brand-700"
              >
                {item.label}
              </a>
            </li>
          ))}
          <li className="mt-2 border-t border-slate-200 pt-3">
            <Link to={paths.store} className={buttonClasses('primary', 'lg', 'w-full')}>
              Tienda
            </Link>
          </li>
        </ul>
      </nav>
    </Sheet>
  );
}
