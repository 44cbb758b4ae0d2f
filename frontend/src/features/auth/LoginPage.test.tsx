import { QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter, Route, Routes } from 'react-router';
import { currentToast } from '@/components/ui/toast';
import type { ReturnTo } from '@/lib/session';
import { createQueryClient } from '@/App';
import { signIn } from './api/signIn';
import LoginPage from './LoginPage';

vi.mock('./api/signIn', () => ({ signIn: vi.fn() }));
const signInMock = vi.mocked(signIn);

function renderAt(state?: ReturnTo) {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[{ pathname: '/auth', state }]}>
        <Routes>
          <Route path="/auth" element={<LoginPage />} />
          <Route path="/admin" element={<h1>Panel</h1>} />
          <Route path="/admin/products" element={<h1>Productos admin</h1>} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

async function fillAndSubmit() {
  const user = userEvent.setup();
  await user.type(screen.getByLabelText('Correo electrónico'), 'staff@tienda.example');
  await user.type(screen.getByLabelText('Contraseña'), 'secreto123');
  await user.click(screen.getByRole('button', { name: 'Iniciar sesión' }));
  return user;
}

// A function returned from beforeEach would be run as its cleanup: return nothing.
beforeEach(() => {
  signInMock.mockReset();
});

describe('LoginPage', () => {
  it('shows Procesando... while signing in, then welcomes and returns to the remembered page', async () => {
    let finish!: () => void;
    signInMock.mockReturnValue(new Promise<void>((resolve) => (finish = resolve)));
    renderAt({ from: { pathname: '/admin/products' } });
    await fillAndSubmit();

    expect(signInMock).toHaveBeenCalledWith('staff@tienda.example', 'secreto123');
    expect(screen.getByRole('button', { name: 'Procesando...' })).toBeDisabled();

    finish();
    expect(await screen.findByRole('heading', { name: 'Productos admin' })).toBeInTheDocument();
    expect(currentToast()).toMatchObject({ title: 'Bienvenido', description: 'Inicio de sesión exitoso' });
  });

  it('goes to /admin when no page was remembered', async () => {
    signInMock.mockResolvedValue();
    renderAt();
    await fillAndSubmit();
    expect(await screen.findByRole('heading', { name: 'Panel' })).toBeInTheDocument();
  });

  it('shows the server message in Spanish in a destructive toast and stays', async () => {
    signInMock.mockRejectedValue(Object.assign(new Error('Invalid login credentials'), { code: 'invalid_credentials', status: 400 }));
    renderAt({ from: { pathname: '/admin/products' } });
    await fillAndSubmit();

    expect(await screen.findByRole('button', { name: 'Iniciar sesión' })).toBeEnabled();
    expect(currentToast()).toMatchObject({
      title: 'Error al iniciar sesión',
      description: 'Correo o contraseña incorrectos.',
      variant: 'destructive',
    });
    expect(screen.getByRole('heading', { name: 'Iniciar sesión' })).toBeInTheDocument();
  });

  it("falls back to 'Revisa tus credenciales' without a message", async () => {
    signInMock.mockRejectedValue(new Error(''));
    renderAt();
    await fillAndSubmit();
    await screen.findByRole('button', { name: 'Iniciar sesión' });
    expect(currentToast()).toMatchObject({ title: 'Error al iniciar sesión', description: 'Revisa tus credenciales' });
  });

  it('shows and hides the password', async () => {
    const user = userEvent.setup();
    renderAt();
    const password = screen.getByLabelText('Contraseña');
    expect(password).toHaveAttribute('type', 'password');
    await user.click(screen.getByRole('button', { name: 'Mostrar contraseña' }));
    expect(password).toHaveAttribute('type', 'text');
    await user.click(screen.getByRole('button', { name: 'Ocultar contraseña' }));
    expect(password).toHaveAttribute('type', 'password');
  });

  it('has Recordarme and the forgot-password button', () => {
    renderAt();
    expect(screen.getByRole('checkbox', { name: 'Recordarme' })).not.toBeChecked();
    expect(screen.getByRole('button', { name: '¿Olvidaste tu contraseña?' })).toBeInTheDocument();
  });
});
