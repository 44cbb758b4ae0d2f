import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router';
import type { Product } from '@/lib/types';
import { fetchFeaturedProducts } from './api/fetchFeaturedProducts';
import LandingPage from './LandingPage';

vi.mock('./api/fetchFeaturedProducts', () => ({ fetchFeaturedProducts: vi.fn() }));
const featuredMock = vi.mocked(fetchFeaturedProducts);

const featured = (id: number, name: string): Product => ({
  id,
  name,
  description: 'Nuevo y con garantía',
  price: 1000000 * id,
  quantity: 2,
  category: 'celulares',
  condition: 'nuevo',
  color: null,
  link_image: null,
  link_image_s3: null,
  upload_file: false,
  featured: true,
  status: true,
  brand_id: 1,
  created_at: '2026-01-01T00:00:00Z',
  created_by: null,
  updated: null,
  updated_by: null,
  brands: { id: 1, name: 'Apple', description: null },
});

function renderLanding() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  render(
    <QueryClientProvider client={client}>
      <MemoryRouter>
        <LandingPage />
      </MemoryRouter>
    </QueryClientProvider>,
  );
}

const chatText = (link: HTMLElement) => new URL(link.getAttribute('href')!).searchParams.get('text');

describe('LandingPage', () => {
  it("lists the featured models, each with 'Solicitar Crédito' naming it", async () => {
    featuredMock.mockResolvedValue([featured(3, 'iPhone 15 Pro'), featured(2, 'Galaxy A35')]);
    renderLanding();
    const section = (await screen.findByRole('heading', { name: 'Modelos destacados' })).closest('section')!;
    const cards = within(section).getAllByRole('article');
    expect(cards).toHaveLength(2);
    expect(chatText(within(cards[0]!).getByRole('link', { name: 'Solicitar Crédito' }))).toBe(
      'Hola, quiero solicitar crédito para el iPhone 15 Pro.',
    );
    expect(cards[1]!.textContent).toContain('$\u00a02.000.000');
  });

  it('shows no featured models when none loaded', async () => {
    featuredMock.mockResolvedValue([]);
    renderLanding();
    expect(await screen.findByRole('heading', { name: 'Nuestros productos' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Modelos destacados' })).not.toBeInTheDocument();
    expect(screen.queryByRole('link', { name: 'Solicitar Crédito' })).not.toBeInTheDocument();
  });

  it("has 'Aplicar Ahora', five questions, the floating chat button and the store link", async () => {
    featuredMock.mockResolvedValue([]);
    renderLanding();
    expect(chatText(screen.getByRole('link', { name: 'Aplicar Ahora' }))).toBe(
      'Hola, quiero aplicar a un crédito con mi cédula. ¿Me pueden dar más información?',
    );
    const faq = screen.getByRole('heading', { name: 'Resolvemos tus dudas' }).closest('section')!;
    // The accordion loads apart from the page: wait for its five triggers.
    expect(await within(faq).findAllByRole('button')).toHaveLength(5);
    expect(chatText(screen.getByRole('link', { name: 'Escríbenos por WhatsApp' }))).toBe(
      'Hola, quiero más información sobre sus productos.',
    );
    expect(screen.getAllByRole('link', { name: 'Tienda' })[0]).toHaveAttribute('href', '/store');
    expect(screen.getAllByRole('link', { name: /ventas@tienda\.example/ })[0]).toHaveAttribute('href', 'mailto:ventas@tienda.example');
    await screen.findByRole('heading', { name: 'Nuestros productos' });
  });
});
