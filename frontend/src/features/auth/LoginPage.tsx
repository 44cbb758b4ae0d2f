import { CheckCircle2, Eye, EyeOff, Lock } from 'lucide-react';
import { MAIN_CONTENT_ID } from '@/components/ui/skip-link';
import { useEffect, useState, type FormEvent } from 'react';
import { Navigate, useLocation, useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { Input, Label } from '@/components/ui/input';
import { toast } from '@/components/ui/toast';
import { useSession } from '@/lib/session';
import { authErrorMessage } from './authErrors';
import { signIn } from './api/signIn';
import { returnPath } from './returnTo';
import { ShopLogo } from '@/components/ui/shop-logo';

const panelPoints = [
  'Gestiona tus productos, marcas y categorías',
  'Controla el inventario y los productos destacados',
  'Actualiza la información de tu tienda en un solo lugar',
] as const;

/** /auth (spec section 2, Login). */
export default function LoginPage() {
  const session = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const destination = returnPath(location.state);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [showPassword, setShowPassword] = useState(false);
  const [remember, setRemember] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    document.title = 'Iniciar sesión';
  }, []);

  // Already signed in: nothing to do here (spec section 2, Routes). While a
  // submit is running, the submit handler does the redirect with its toast.
  if (session.status === 'signed-in' && !busy) return <Navigate to={destination} replace />;

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    try {
      await signIn(email, password);
      toast({ title: 'Bienvenido', description: 'Inicio de sesión exitoso' });
      navigate(destination, { replace: true });
    } catch (error) {
      toast({ title: 'Error al iniciar sesión', description: authErrorMessage(error), variant: 'destructive' });
      setBusy(false);
    }
  }

  return (
    <div className="grid min-h-dvh lg:grid-cols-2">
      <main id={MAIN_CONTENT_ID} tabIndex={-1} className="flex items-center justify-center px-4 py-12 sm:px-6">
        <div className="w-full max-w-sm">
          <ShopLogo size="lg" />
          <h1 className="mt-8 text-2xl font-bold tracking-tight text-slate-900">Iniciar sesión</h1>
          <p className="mt-1 text-sm text-slate-600">Ingresa con tu cuenta para administrar la tienda.</p>

          <form onSubmit={onSubmit} className="mt-8 flex flex-col gap-5">
            <div className="flex flex-col gap-1.5">
              <Label htmlFor="login-email">Correo electrónico</Label>
              <Input
                id="login-email"
                type="email"
                required
                autoComplete="email"
                value={email}
                onChange={(event) => setEmail(event.target.value)}
                placeholder="tu@correo.com"
              />
            </div>
            <div className="flex flex-col gap-1.5">
              <Label htmlFor="login-password">Contraseña</Label>
              <div className="relative">
                <Input
                  id="login-password"
                  type={showPassword ? 'text' : 'password'}
                  required
                  autoComplete="current-password"
                  value={password}
                  onChange={(event) => setPassword(event.target.value)}
                  className="pr-11"
                />
                <button
                  type="button"
                  onClick={() => setShowPassword((shown) => !shown)}
                  aria-label={showPassword ? 'Ocultar contraseña' : 'Mostrar contraseña'}
                  aria-pressed={showPassword}
                  aria-controls="login-password"
                  className="absolute inset-y-0 right-0 inline-flex w-10 items-center justify-center rounded-r-md text-slate-600 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-brand-700"
                >
                  {showPassword ? <EyeOff aria-hidden="true" className="h-5 w-5" /> : <Eye aria-hidden="true" className="h-5 w-5" />}
                </button>
              </div>
            </div>
            <div className="flex items-center justify-between gap-4">
              {/* Remembered or not, the session is kept (spec section 2: no further effect). */}
              <label className="inline-flex items-center gap-2 text-sm text-slate-700">
                <input
                  type="checkbox"
                  checked={remember}
                  onChange={(event) => setRemember(event.target.checked)}
                  className="h-4 w-4 rounded border-slate-300 accent-brand-700"
                />
                Recordarme
              </label>
              {/* Not wired to anything yet (spec section 2). */}
              <button type="button" className="text-sm font-medium text-brand-700 hover:underline focus-visible:outline-2 focus-visible:outline-brand-700">
                ¿Olvidaste tu contraseña?
              </button>
            </div>
            <Button type="submit" size="lg" disabled={busy} className="w-full">
              {busy ? 'Procesando...' : 'Iniciar sesión'}
            </Button>
          </form>
        </div>
      </main>
      <aside className="relative hidden overflow-hidden bg-gradient-to-br from-brand-900 to-brand-700 p-12 text-white lg:flex lg:flex-col lg:justify-center">
        <div aria-hidden="true" className="absolute -right-20 -top-20 h-80 w-80 rounded-full bg-white/5" />
        <div className="relative max-w-md">
          <span className="inline-flex h-12 w-12 items-center justify-center rounded-xl bg-white/10 ring-1 ring-white/20">
            <Lock aria-hidden="true" className="h-6 w-6" />
          </span>
          <h2 className="mt-6 text-3xl font-bold tracking-tight">Administra tu tienda con facilidad</h2>
          <p className="mt-3 text-blue-100">Todo lo que necesitas para mantener tu catálogo al día.</p>
          <ul className="mt-8 space-y-4">
            {panelPoints.map((point) => (
              <li key={point} className="flex items-start gap-3">
                <CheckCircle2 aria-hidden="true" className="mt-0.5 h-5 w-5 shrink-0 text-sky-300" />
                <span>{point}</span>
              </li>
            ))}
          </ul>
        </div>
      </aside>
    </div>
  );
}
