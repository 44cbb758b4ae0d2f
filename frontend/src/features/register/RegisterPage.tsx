import { useEffect, type FormEvent } from 'react';
import { MAIN_CONTENT_ID } from '@/components/ui/skip-link';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Input, Label } from '@/components/ui/input';
import { paths } from '@/paths';
import { ShopLogo } from '@/components/ui/shop-logo';

/**
 * /register: a placeholder form with username and password that does nothing
 * (spec section 2). Accounts are created by the shop, and public sign-up is
 * off on the server, so submitting sends nothing anywhere.
 */
export default function RegisterPage() {
  useEffect(() => {
    document.title = 'Crear cuenta';
  }, []);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
  }

  return (
    <main id={MAIN_CONTENT_ID} tabIndex={-1} className="flex min-h-dvh items-center justify-center bg-slate-50 px-4 py-12">
      <div className="w-full max-w-sm rounded-2xl border border-slate-200 bg-white p-8 shadow-sm">
        <ShopLogo />
        <h1 className="mt-6 text-2xl font-bold tracking-tight text-slate-900">Crear cuenta</h1>
        <form onSubmit={onSubmit} className="mt-6 flex flex-col gap-5">
          <div className="flex flex-col gap-1.5">
            <Label htmlFor="register-username">Usuario</Label>
            <Input id="register-username" name="username" autoComplete="username" />
          </div>
          <div className="flex flex-col gap-1.5">
            <Label htmlFor="register-password">Contraseña</Label>
            <Input id="register-password" name="password" type="password" autoComplete="new-password" />
          </div>
          <Button type="submit" size="lg" className="w-full">
            Registrarse
          </Button>
        </form>
        <p className="mt-6 text-center text-sm text-slate-600">
          ¿Ya tienes cuenta?{' '}
          <Link to={paths.auth} className="font-medium text-brand-700 hover:underline">
            Inicia sesión
          </Link>
        </p>
      </div>
    </main>
  );
}
