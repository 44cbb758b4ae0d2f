import { useQuery } from '@tanstack/react-query';
import { MAIN_CONTENT_ID } from '@/components/ui/skip-link';
import {
  LayoutDashboard,
  LogOut,
  Menu,
  Package,
  PanelLeftClose,
  PanelLeftOpen,
  Settings,
  Tags,
  type LucideIcon,
} from 'lucide-react';
import { useEffect, useState } from 'react';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { Sheet } from '@/components/ui/dialog';
import { toast } from '@/components/ui/toast';
import { cn } from '@/lib/cn';
import { useShopFace } from '@/lib/company';
import { useSession } from '@/lib/session';
import { paths } from '@/paths';
import { fetchOwnFullName } from './api/fetchOwnFullName';
import { signOut } from './api/signOut';
import { displayName, initials } from './displayName';

interface NavItem {
  to: string;
  label: string;
  icon: LucideIcon;
  end?: boolean;
}

const navItems: NavItem[] = [
  { to: paths.admin, label: 'Dashboard', icon: LayoutDashboard, end: true },
  { to: paths.adminBrands, label: 'Marcas', icon: Tags },
  { to: paths.adminProducts, label: 'Productos', icon: Package },
  { to: paths.adminSettings, label: 'Configuración', icon: Settings },
];

// The desktop sidebar's collapsed state outlives a reload.
const COLLAPSED_KEY = 'admin.sidebar.collapsed';

function readCollapsed(): boolean {
  try {
    return localStorage.getItem(COLLAPSED_KEY) === '1';
  } catch {
    return false;
  }
}

interface SidebarContentProps {
  collapsed: boolean;
  name: string;
  email: string;
  onNavigate?: () => void;
  onSignOut: () => void;
  signingOut: boolean;
}

function SidebarContent({ collapsed, name, email, onNavigate, onSignOut, signingOut }: SidebarContentProps) {
  return (
    <div className="flex h-full flex-col">
      <nav aria-label="Administración" className="flex-1 space-y-1 px-3 py-4">
        {navItems.map(({ to, label, icon: Icon, end }) => (
          <NavLink
            key={to}
            to={to}
            end={end}
            onClick={onNavigate}
            title={collapsed ? label : undefined}
            className={({ isActive }) =>
              cn(
                'flex items-center gap-3 rounded-md px-3 py-2.5 text-sm font-medium transition-colors',
                'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600',
                isActive ? 'bg-brand-700 text-white shadow-sm' : 'text-slate-300 hover:bg-slate-800 hover:text-white',
                collapsed && 'justify-center px-0',
              )
            }
          >
            <Icon aria-hidden="true" className="h-5 w-5 shrink-0" />
            <span className={cn(collapsed && 'sr-only')}>{label}</span>
          </NavLink>
        ))}
      </nav>
      <div className="border-t border-slate-800 p-3">
        <div className={cn('flex items-center gap-3 rounded-md px-2 py-2', collapsed && 'justify-center px-0')}>
          <span
            aria-hidden="true"
            className="flex h-9 w-9 shrink-0 items-center justify-center rounded-full bg-brand-600 text-sm font-semibold text-white"
          >
            {initials(name)}
          </span>
          <div className={cn('min-w-0', collapsed && 'sr-only')}>
            <p className="truncate text-sm font-semibold text-white" data-testid="user-name">
              {name}
            </p>
            <p className="truncate text-xs text-slate-400" data-testid="user-email">
              {email}
            </p>
          </div>
        </div>
        <button
          type="button"
          onClick={onSignOut}
          disabled={signingOut}
          title={collapsed ? 'Cerrar sesión' : undefined}
          className={cn(
            'mt-2 flex w-full items-center gap-3 rounded-md px-3 py-2.5 text-sm font-medium text-slate-300',
            'hover:bg-slate-800 hover:text-white focus-visible:outline-2 focus-visible:outline-brand-600 disabled:opacity-60',
            collapsed && 'justify-center px-0',
          )}
        >
          <LogOut aria-hidden="true" className="h-5 w-5 shrink-0" />
          <span className={cn(collapsed && 'sr-only')}>Cerrar sesión</span>
        </button>
      </div>
    </div>
  );
}

function Brand({ collapsed }: { collapsed: boolean }) {
  // The company's name as Configuración saved it (lib/company.ts).
  const { name } = useShopFace();
  return (
    <div className={cn('flex h-16 items-center gap-3 border-b border-slate-800 px-4', collapsed && 'justify-center px-0')}>
      <img src="/logo.svg" alt="" className="h-8 w-8 shrink-0 rounded-md bg-white p-0.5" />
      <div className={cn('min-w-0 leading-tight', collapsed && 'sr-only')}>
        <p className="truncate text-sm font-bold text-white">{name}</p>
        <p className="truncate text-xs text-slate-400">Panel de administración</p>
      </div>
    </div>
  );
}

/** The admin area's frame: sidebar (collapsible on desktop, slide-over on mobile), top bar and the page. */
export default function AdminLayout() {
  const session = useSession();
  const user = session.status === 'signed-in' ? session.session.user : null;
  const navigate = useNavigate();
  const location = useLocation();
  const [collapsed, setCollapsed] = useState(readCollapsed);
  const [mobileOpen, setMobileOpen] = useState(false);
  const [signingOut, setSigningOut] = useState(false);

  const profileName = useQuery({
    queryKey: ['own-full-name', user?.id],
    queryFn: () => fetchOwnFullName(user!.id),
    enabled: Boolean(user),
    staleTime: 5 * 60_000,
  });

  useEffect(() => {
    try {
      localStorage.setItem(COLLAPSED_KEY, collapsed ? '1' : '0');
    } catch {
      // Private modes may refuse storage; the sidebar then simply forgets.
    }
  }, [collapsed]);

  const name = displayName({
    metadataFullName: user?.user_metadata?.full_name,
    profileFullName: profileName.data,
    email: user?.email,
  });
  const email = user?.email ?? '';
  const current = navItems.find((item) =>
    item.end ? location.pathname === item.to || location.pathname === `${item.to}/` : location.pathname.startsWith(item.to),
  );

  const handleSignOut = async () => {
    setSigningOut(true);
    try {
      await signOut();
      navigate(paths.auth, { replace: true });
    } catch (error) {
      toast({
        title: 'Error',
        description: error instanceof Error ? error.message : 'No se pudo cerrar la sesión',
        variant: 'destructive',
      });
    } finally {
      setSigningOut(false);
    }
  };

  return (
    <div className="min-h-dvh bg-slate-50">
      <aside
        aria-label="Barra lateral"
        className={cn(
          'fixed inset-y-0 left-0 z-30 hidden flex-col bg-slate-900 transition-[width] duration-200 motion-reduce:transition-none lg:flex',
          collapsed ? 'w-20' : 'w-64',
        )}
      >
        <Brand collapsed={collapsed} />
        <SidebarContent
          collapsed={collapsed}
          name={name}
          email={email}
          onSignOut={handleSignOut}
          signingOut={signingOut}
        />
      </aside>

      <Sheet
        open={mobileOpen}
        onOpenChange={setMobileOpen}
        side="left"
        title="Menú"
        className="max-w-72! bg-slate-900! [&>div]:p-0! [&>header]:border-slate-800 [&>header_h2]:text-white [&>header_button]:text-slate-300 [&>header_button:hover]:bg-slate-800"
      >
        <SidebarContent
          collapsed={false}
          name={name}
          email={email}
          onNavigate={() => setMobileOpen(false)}
          onSignOut={handleSignOut}
          signingOut={signingOut}
        />
      </Sheet>

      <div className={cn('flex min-h-dvh flex-col transition-[padding] duration-200 motion-reduce:transition-none', collapsed ? 'lg:pl-20' : 'lg:pl-64')}>
        <header className="sticky top-0 z-20 flex h-16 items-center gap-3 border-b border-slate-200 bg-white/90 px-4 backdrop-blur sm:px-6">
          <button
            type="button"
            onClick={() => setMobileOpen(true)}
            aria-label="Abrir menú"
            className="inline-flex h-10 w-10 items-center justify-center rounded-md text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-brand-700 lg:hidden"
          >
            <Menu aria-hidden="true" className="h-5 w-5" />
          </button>
          <button
            type="button"
            onClick={() => setCollapsed((value) => !value)}
            aria-label={collapsed ? 'Expandir menú lateral' : 'Contraer menú lateral'}
            aria-expanded={!collapsed}
            className="hidden h-10 w-10 items-center justify-center rounded-md text-slate-700 hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-brand-700 lg:inline-flex"
          >
            {collapsed ? <PanelLeftOpen aria-hidden="true" className="h-5 w-5" /> : <PanelLeftClose aria-hidden="true" className="h-5 w-5" />}
          </button>
          <p className="truncate text-sm text-slate-500">
            Administración
            {current ? (
              <>
                <span aria-hidden="true" className="mx-2 text-slate-300">/</span>
                <span className="font-medium text-slate-900">{current.label}</span>
              </>
            ) : null}
          </p>
          <div className="ml-auto flex items-center gap-3">
            <span className="hidden text-right text-sm leading-tight sm:block">
              <span className="block font-medium text-slate-900">{name}</span>
              <span className="block text-xs text-slate-500">{email}</span>
            </span>
            <span
              aria-hidden="true"
              className="flex h-9 w-9 items-center justify-center rounded-full bg-brand-100 text-sm font-semibold text-brand-800"
            >
              {initials(name)}
            </span>
          </div>
        </header>
        <main id={MAIN_CONTENT_ID} tabIndex={-1} className="mx-auto w-full max-w-7xl flex-1 px-4 py-6 sm:px-6 lg:px-8 lg:py-8">
          <Outlet />
        </main>
      </div>
    </div>
  );
}
