import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen } from '@testing-library/react';
import { vi } from 'vitest';
import DashboardPage from './DashboardPage';
import { fetchDashboardCounts } from './dashboardCounts';

vi.mock('./dashboardCounts', () => ({ fetchDashboardCounts: vi.fn() }));

function renderPage() {
  render(
    <QueryClientProvider client={new QueryClient({ defaultOptions: { queries: { retry: false } } })}>
      <DashboardPage />
    </QueryClientProvider>,
  );
}

describe('the dashboard', () => {
  it('shows a skeleton, then the four cards', async () => {
    vi.mocked(fetchDashboardCounts).mockResolvedValue({
      products: 41,
      categories: 12,
      newProducts: 3,
      activeBrands: 6,
      featuredProducts: 7,
    });
    renderPage();
    expect(screen.getByLabelText('Cargando datos del dashboard')).toBeInTheDocument();
    expect(await screen.findByTestId('stat-Productos')).toHaveTextContent('41');
    expect(screen.getByText('12 categorías')).toBeInTheDocument();
    expect(screen.getByTestId('stat-Productos Nuevos')).toHaveTextContent('3');
    expect(screen.getByTestId('stat-Marcas Activas')).toHaveTextContent('6');
    expect(screen.getByTestId('stat-Productos Destacados')).toHaveTextContent('7');
    expect(screen.getByText('En promoción')).toBeInTheDocument();
    expect(screen.getByText('Resumen general de tu negocio')).toBeInTheDocument();
  });

  it('shows the error text', async () => {
    vi.mocked(fetchDashboardCounts).mockRejectedValue(new Error('Error en la API de productos: 500'));
    renderPage();
    expect(
      await screen.findByText('Error al cargar datos del dashboard: Error en la API de productos: 500'),
    ).toBeInTheDocument();
  });
});
