import { Link } from 'react-router';
import { cn } from '@/lib/cn';
import { useShopFace } from '@/lib/company';
import { paths } from '@/paths';

/** The shop's logo and name, linking home (public headers, login, register). */
export function ShopLogo({ size = 'md', className }: { size?: 'md' | 'lg'; className?: string }) {
  const px = size === 'lg' ? 36 : 32;
  const { name } = useShopFace();
  return (
    <Link
      to={paths.home}
      className={cn(
        'inline-flex min-w-0 items-center gap-2 rounded-md focus-visible:outline-2 focus-visible:outline-brand-700',
        className,
      )}
    >
      <img src="/logo.svg" alt="" width={px} height={px} className={size === 'lg' ? 'h-9 w-9 shrink-0' : 'h-8 w-8 shrink-0'} />
      {/* On a 360 px phone the name takes two lines rather than losing its end. */}
      <span
        className={cn(
          'line-clamp-2 font-bold text-slate-900',
          size === 'lg' ? 'text-lg' : 'text-sm leading-tight sm:text-lg sm:leading-normal',
        )}
      >
        {name}
      </span>
    </Link>
  );
}
