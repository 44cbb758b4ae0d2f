import { Menu } from 'lucide-react';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { buttonClasses } from '@/components/ui/button';
import { whenIdle } from '@/lib/preload';
import { paths } from '@/paths';
import { landingMenu } from './landingMenu';
import { ShopLogo } from '@/components/ui/shop-logo';

// The slide-in menu (and Radix Dialog under it) loads apart from the page,
// fetched while the browser is idle, to keep the landing within its JS budget.
const loadMobileMenu = () => import('./MobileMenu');
const MobileMenu = lazy(() => loadMobileMenu().then((m) => ({ default: m.MobileMenu })));

/** The landing's header: anchor menu, 'Tienda', and a slide-in menu on small screens. */
export function LandingHeader() {
  const [open, setOpen] = useState(false);
  const [menuUsed, setMenuUsed] = useState(false);

  useEffect(() => whenIdle(loadMobileMenu), []);

  return (
    <header className="sticky top-0 z-20 border-b border-slate-200/80 bg-white/90 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-4 px-4 sm:px-6">
        <ShopLogo />
        <nav aria-label="Secciones" className="hidden items-center gap-1 lg:flex">
          {landingMenu.map((item) => (
            <a
              key={item.id}
              href={`#${item.id}`}
              className="rounded-md px-3 py-2 text-sm font-medium text-slate-700 hover:bg-slate-100 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-700"
            >
              {item.label}
            </a>
          ))}
          <Link to={paths.store} className={buttonClasses('primary', 'md', 'ml-2')}>
            Tienda
          </Link>
        </nav>
        <div className="flex shrink-0 items-center gap-2 lg:hidden">
          <Link to={paths.store} className={buttonClasses('primary', 'sm')}>
            Tienda
          </Link>
          <button
            type="button"
            onClick={() => {
              setMenuUsed(true);
              setOpen(true);
            }}
            aria-label="Abrir menú"
            aria-haspopup="dialog"
            aria-expanded={open}
            className="inline-flex h-10 w-10 items-center justify-center rounded-md text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-brand-700"
          >
            <Menu aria-hidden="true" className="h-6 w-6" />
          </button>
        </div>
      </div>
      {menuUsed ? (
        <Suspense fallback={null}>
          <MobileMenu open={open} onOpenChange={setOpen} />
        </Suspense>
      ) : null}
    </header>
  );
}
