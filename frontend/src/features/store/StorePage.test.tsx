import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { act, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { MemoryRouter } from 'react-router';
import type { Product } from '@/lib/types';
import { fetchCategories } from './api/fetchCategories';
import { fetchProducts, type ProductsRequest } from './api/fetchProducts';
import { fetchStoreBrands } from './api/fetchStoreBrands';
import StorePage from './StorePage';

vi.mock('./api/fetchProducts', async (importOriginal) => ({
  ...(await importOriginal<typeof import('./api/fetchProducts')>()),
  fetchProducts: vi.fn(),
}));
vi.mock('./api/fetchCategories', () => ({ fetchCategories: vi.fn() }));
vi.mock('./api/fetchStoreBrands', () => ({ fetchStoreBrands: vi.fn() }));

const productsMock = vi.mocked(fetchProducts);

const product = (id: number, extra: Partial<Product> = {}): Product => ({
  id,
  name: `Celular ${id}`,
  description: `Descripción ${id}`,
  price: 100000 * id,
  quantity: 3,
  category: 'celulares',
  condition: 'nuevo',
  color: 'Negro',
  link_image: null,
  link_image_s3: null,
  upload_file: false,
  featured: false,
  status: true,
  brand_id: 1,
  created_at: '2026-01-01T00:00:00Z',
  created_by: null,
  updated: null,
  updated_by: null,
  brands: { id: 1, name: 'Samsung', description: null },
  ...extra,
});

/** 45 products, served 20 at a time; `category` narrows them to 5. */
function serveCatalogue() {
  productsMock.mockImplementation(async (request: ProductsRequest) => {
    const all = request.category === 'tablet' ? [101, 102, 103, 104, 105].map((id) => product(id)) : Array.from({ length: 45 }, (_, i) => product(i + 1));
    const from = (request.page - 1) * 20;
    return { products: all.slice(from, from + 20), total: all.length };
  });
}

function renderStore() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={['/store']}>
        <StorePage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const cardNames = () => screen.queryAllByRole('article').map((card) => within(card).getByRole('heading').textContent);

beforeEach(() => {
  productsMock.mockReset();
  vi.mocked(fetchCategories).mockResolvedValue(['celulares', 'tablet', 'categoria-desconocida']);
  vi.mocked(fetchStoreBrands).mockResolvedValue([{ id: 1, name: 'Samsung' }]);
});

describe('StorePage', () => {
  it('shows page 1, appends page 2 and hides the button on the last page', async () => {
    serveCatalogue();
    const user = userEvent.setup();
    renderStore();
    expect(await screen.findByText('45 productos')).toBeInTheDocument();
    expect(cardNames()).toHaveLength(20);

    await user.click(screen.getByRole('button', { name: 'Mostrar más productos' }));
    await screen.findByText('Celular 40');
    expect(cardNames()).toHaveLength(40);
    expect(productsMock).toHaveBeenLastCalledWith(expect.objectContaining({ page: 2 }), expect.anything());

    await user.click(screen.getByRole('button', { name: 'Mostrar más productos' }));
    await screen.findByText('Celular 45');
    expect(cardNames()).toHaveLength(45);
    expect(screen.queryByRole('button', { name: 'Mostrar más productos' })).not.toBeInTheDocument();
  });

  it("reads 'Cargando...' while the next page loads", async () => {
    serveCatalogue();
    const user = userEvent.setup();
    renderStore();
    await screen.findByText('45 productos');
    let release!: () => void;
    productsMock.mockImplementationOnce(
      () => new Promise((resolve) => (release = () => resolve({ products: [product(21)], total: 45 }))),
    );
    await user.click(screen.getByRole('button', { name: 'Mostrar más productos' }));
    // Marked busy, not disabled, so the keyboard focus stays on it.
    const loading = screen.getByRole('button', { name: 'Cargando...' });
    expect(loading).toHaveAttribute('aria-disabled', 'true');
    expect(loading).toHaveFocus();
    await act(async () => release());
    const again = await screen.findByRole('button', { name: 'Mostrar más productos' });
    expect(again).toBeEnabled();
    expect(again).toHaveFocus();
  });

  it('a filter change goes back to page 1 and replaces the list', async () => {
    serveCatalogue();
    const user = userEvent.setup();
    renderStore();
    await screen.findByText('45 productos');
    await user.click(screen.getByRole('button', { name: 'Mostrar más productos' }));
    await screen.findByText('Celular 40');

    await user.selectOptions(screen.getByLabelText('Categoría'), 'tablet');
    expect(await screen.findByText('5 productos')).toBeInTheDocument();
    expect(cardNames()).toEqual(['Celular 101', 'Celular 102', 'Celular 103', 'Celular 104', 'Celular 105']);
    expect(productsMock).toHaveBeenLastCalledWith(expect.objectContaining({ page: 1, category: 'tablet' }), expect.anything());
  });

  it('offers only the fixed categories the server lists', async () => {
    serveCatalogue();
    renderStore();
    await screen.findByText('45 productos');
    const options = within(screen.getByLabelText('Categoría')).getAllByRole('option').map((o) => o.textContent);
    expect(options).toEqual(['Todas', 'Celulares', 'Tablets']);
  });

  it('searches 300 ms after the typing stops', async () => {
    serveCatalogue();
    const user = userEvent.setup();
    renderStore();
    await screen.findByText('45 productos');
    productsMock.mockClear();
    await user.type(screen.getByRole('searchbox', { name: 'Buscar productos' }), 'galaxy');
    expect(productsMock).not.toHaveBeenCalled();
    await vi.waitFor(() =>
      expect(productsMock).toHaveBeenCalledWith(expect.objectContaining({ page: 1, search: 'galaxy' }), expect.anything()),
    );
    expect(productsMock).toHaveBeenCalledTimes(1);
  });

  it("shows only 'Error: {message}' when loading fails", async () => {
    productsMock.mockRejectedValue(new Error('Error en la API: 500 Internal Server Error'));
    renderStore();
    expect(await screen.findByRole('alert')).toHaveTextContent('Error: Error en la API: 500 Internal Server Error');
    expect(screen.queryByRole('searchbox')).not.toBeInTheDocument();
  });

  it('opens the drawer with the product details and its chat link', async () => {
    productsMock.mockResolvedValue({ products: [product(7, { quantity: 1, featured: true, brands: null })], total: 1 });
    const user = userEvent.setup();
    renderStore();
    await user.click(await screen.findByRole('button', { name: 'ver más sobre Celular 7' }));
    const drawer = await screen.findByRole('dialog', { name: 'Detalles del producto' });
    expect(within(drawer).getByText('Sin marca')).toBeInTheDocument();
    expect(within(drawer).getByText('1 unidad disponible')).toBeInTheDocument();
    expect(within(drawer).getByText('Destacado')).toBeInTheDocument();
    const link = within(drawer).getByRole('link', { name: 'Consultar disponibilidad por WhatsApp' });
    expect(new URL(link.getAttribute('href')!).searchParams.get('text')).toBe(
      'Hola, me gustaría recibir más información sobre Celular 7 ($\u00a0700.000).',
    );
  });
});
