import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { currentToast } from '@/components/ui/toast';
import type { Company } from '@/lib/types';
import { fetchCompany } from './api/fetchCompany';
import { fetchOwnCompanyId } from './api/fetchOwnCompanyId';
import { updateCompany } from './api/updateCompany';
import SettingsPage from './SettingsPage';

vi.mock('@/lib/session', () => ({
  useSession: () => ({ status: 'signed-in', session: { user: { id: 'user-1' } } }),
}));
vi.mock('./api/fetchOwnCompanyId', () => ({ fetchOwnCompanyId: vi.fn() }));
vi.mock('./api/fetchCompany', () => ({ fetchCompany: vi.fn() }));
vi.mock('./api/updateCompany', () => ({ updateCompany: vi.fn() }));

const company: Company = {
  id: 7,
  name: 'Tienda',
  email: 'ventas@tienda.example',
  phone: '+57 300',
  display_category_stock: true,
  display_product_stock: true,
  display_users: false,
  updated_at: null,
  updated_by: null,
};

function renderPage() {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <SettingsPage />
    </QueryClientProvider>,
  );
}

describe('the settings page', () => {
  // A braced body: a function returned from `beforeEach` is run as its
  // teardown, and `mockReset()` returns the mock itself.
  beforeEach(() => {
    vi.mocked(updateCompany).mockReset();
  });

  it('explains a user without a company', async () => {
    vi.mocked(fetchOwnCompanyId).mockRejectedValue(new Error('Usuario no está asociado a ninguna empresa'));
    renderPage();
    expect(await screen.findByText('Error al cargar configuración')).toBeInTheDocument();
    expect(screen.getByText('Usuario no está asociado a ninguna empresa')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Recargar' })).toBeInTheDocument();
  });

  it('keeps the toggles local until saved, then saves them for the own company', async () => {
    vi.mocked(fetchOwnCompanyId).mockResolvedValue(7);
    vi.mocked(fetchCompany).mockResolvedValue(company);
    vi.mocked(updateCompany).mockImplementation(async (_id, _user, changes) => ({ ...company, ...changes }));
    const user = userEvent.setup();
    renderPage();
    const usersSwitch = await screen.findByRole('switch', { name: 'Mostrar usuarios' });
    await user.click(usersSwitch);
    expect(usersSwitch).toHaveAttribute('aria-checked', 'true');
    expect(updateCompany).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Guardar Configuración' }));
    expect(updateCompany).toHaveBeenCalledWith(7, 'user-1', {
      display_category_stock: true,
      display_product_stock: true,
      display_users: true,
    });
    await vi.waitFor(() => expect(currentToast()?.title).toBe('Configuración guardada'));
  });

  it('saves the general data of the own company', async () => {
    vi.mocked(fetchOwnCompanyId).mockResolvedValue(7);
    vi.mocked(fetchCompany).mockResolvedValue(company);
    vi.mocked(updateCompany).mockImplementation(async (_id, _user, changes) => ({ ...company, ...changes }));
    const user = userEvent.setup();
    renderPage();
    const name = await screen.findByLabelText('Nombre de la tienda');
    await user.clear(name);
    await user.type(name, 'Tienda Meta');
    await user.click(screen.getByRole('button', { name: 'Guardar Cambios' }));
    expect(updateCompany).toHaveBeenCalledWith(7, 'user-1', {
      name: 'Tienda Meta',
      email: 'ventas@tienda.example',
      phone: '+57 300',
    });
    await vi.waitFor(() => expect(currentToast()?.title).toBe('Configuración guardada'));
  });

  it('says so when saving fails, and keeps what was typed', async () => {
    vi.mocked(fetchOwnCompanyId).mockResolvedValue(7);
    vi.mocked(fetchCompany).mockResolvedValue(company);
    vi.mocked(updateCompany).mockRejectedValue(new Error('new row violates row-level security policy'));
    const user = userEvent.setup();
    renderPage();
    const name = await screen.findByLabelText('Nombre de la tienda');
    await user.clear(name);
    await user.type(name, 'Tienda Meta');
    await user.click(screen.getByRole('button', { name: 'Guardar Cambios' }));
    await vi.waitFor(() => expect(currentToast()?.title).toBe('Error al guardar'));
    expect(currentToast()?.variant).toBe('destructive');
    expect(name).toHaveValue('Tienda Meta');
    expect(screen.getByRole('button', { name: 'Guardar Cambios' })).toBeEnabled();
  });
});
