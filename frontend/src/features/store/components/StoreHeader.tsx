import { ShoppingCart, User } from 'lucide-react';
import type { MouseEvent } from 'react';
import { ShopLogo } from '@/components/ui/shop-logo';

// The account and cart icons are in the spec with links that lead nowhere
// (there is no account or cart for shoppers yet): they stay on the page.
const stay = (event: MouseEvent) => event.preventDefault();

const iconLink =
  'inline-flex h-10 w-10 items-center justify-center rounded-full text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-brand-700';

export function StoreHeader() {
  return (
    <header className="sticky top-0 z-20 border-b border-slate-200 bg-white/90 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-7xl items-center justify-between gap-4 px-4 sm:px-6">
        <ShopLogo />
        <nav aria-label="Cuenta" className="flex items-center gap-1">
          <a href="#" onClick={stay} className={iconLink} aria-label="Mi cuenta">
            <User aria-hidden="true" className="h-5 w-5" />
          </a>
          <a href="#" onClick={stay} className={iconLink} aria-label="Carrito de compras">
            <ShoppingCart aria-hidden="true" className="h-5 w-5" />
          </a>
        </nav>
      </div>
    </header>
  );
}
