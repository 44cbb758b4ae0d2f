import { useEffect, useState, type AnchorHTMLAttributes } from 'react';
import { cn } from '@/lib/cn';
import { whatsappLink } from '@/lib/whatsapp';
import { buttonClasses } from './button';
import { WhatsAppIcon } from './brand-icons';

// Long labels ('Consultar disponibilidad por WhatsApp') wrap on a 360 px
// screen: the button grows instead of letting the text overflow.
const grow = {
  sm: 'h-auto min-h-8 py-1.5 text-center leading-tight',
  md: 'h-auto min-h-10 py-2 text-center leading-tight',
  lg: 'h-auto min-h-12 py-2.5 text-center leading-tight',
} as const;

interface WhatsAppLinkProps extends Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> {
  /** The prefilled message (lib/whatsapp.ts `messages`). */
  message: string;
  size?: 'sm' | 'md' | 'lg';
  /** Without the icon, e.g. inside running text. */
  plain?: boolean;
}

/**
 * A link that opens a WhatsApp chat with a prefilled message, styled as a
 * button. A new tab, so the shop's page stays where the visitor left it.
 */
export function WhatsAppLink({ message, size = 'md', plain, className, children, ...props }: WhatsAppLinkProps) {
  return (
    <a
      href={whatsappLink(message)}
      target="_blank"
      rel="noopener noreferrer"
      className={plain ? className : buttonClasses('whatsapp', size, cn(grow[size], className))}
      {...props}
    >
      {plain ? null : <WhatsAppIcon className="h-5 w-5 shrink-0" />}
      {children}
    </a>
  );
}

/** The round chat button fixed to the bottom right corner of a page. */
export function FloatingWhatsAppButton({
  message,
  label = 'Escríbenos por WhatsApp',
  hiddenWhileVisible,
}: {
  message: string;
  label?: string;
  /** The id of an element: while any of it is on screen, the button is not shown. */
  hiddenWhileVisible?: string;
}) {
  const covered = useOnScreen(hiddenWhileVisible);
  if (covered) return null;
  return (
    <a
      href={whatsappLink(message)}
      target="_blank"
      rel="noopener noreferrer"
      aria-label={label}
      title={label}
      className={cn(
        'fixed bottom-5 right-5 z-30 inline-flex h-14 w-14 items-center justify-center rounded-full',
        'bg-whatsapp-700 text-white shadow-lg shadow-slate-900/20 transition-transform hover:scale-105 hover:bg-whatsapp-800',
        'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-whatsapp-700 motion-reduce:transition-none motion-reduce:hover:scale-100',
      )}
    >
      <WhatsAppIcon className="h-7 w-7" />
    </a>
  );
}

/** Whether the element with `id` is on screen (false without an id). */
function useOnScreen(id: string | undefined): boolean {
  const [visible, setVisible] = useState(Boolean(id));
  useEffect(() => {
    const element = id ? document.getElementById(id) : null;
    if (!element || typeof IntersectionObserver === 'undefined') {
      setVisible(false);
      return;
    }
    const observer = new IntersectionObserver(([entry]) => setVisible(Boolean(entry?.isIntersecting)));
    observer.observe(element);
    return () => observer.disconnect();
  }, [id]);
  return visible;
}
