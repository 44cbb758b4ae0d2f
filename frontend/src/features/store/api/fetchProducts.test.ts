import { escapeLike, fetchProducts } from './fetchProducts';

/** The request supabase-js sends, with a canned PostgREST answer. */
function stubFetch(init: { status?: number; statusText?: string; body?: unknown; contentRange?: string } = {}) {
  const calls: Array<{ url: URL; headers: Headers }> = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, options?: RequestInit) => {
    calls.push({ url: new URL(String(input)), headers: new Headers(options?.headers) });
    const headers = new Headers({ 'content-type': 'application/json' });
    if (init.contentRange) headers.set('content-range', init.contentRange);
    return new Response(JSON.stringify(init.body ?? []), {
      status: init.status ?? 200,
      statusText: init.statusText ?? 'OK',
      headers,
    });
  });
  vi.stubGlobal('fetch', fetchMock);
  return calls;
}

afterEach(() => vi.unstubAllGlobals());

describe('fetchProducts', () => {
  it('asks for active products in stock with their brand, ordered, one page, with the exact count', async () => {
    const calls = stubFetch({ body: [{ id: 1 }], contentRange: '0-0/41' });
    const page = await fetchProducts({ page: 1 });
    expect(page).toEqual({ products: [{ id: 1 }], total: 41 });

    const { url, headers } = calls[0]!;
    expect(url.pathname).toBe('/rest/v1/products');
    const params = url.searchParams;
    expect(params.get('select')).toBe('*,brands(id,name,description)');
    expect(params.get('status')).toBe('eq.true');
    expect(params.get('quantity')).toBe('gt.0');
    expect(params.get('order')).toBe('featured.desc.nullslast,price.desc,id.asc');
    expect(params.get('offset')).toBe('0');
    expect(params.get('limit')).toBe('20');
    expect(params.has('category')).toBe(false);
    expect(params.has('name')).toBe(false);
    expect(headers.get('prefer')).toContain('count=exact');
  });

  it('adds the chosen filters and pages by 20', async () => {
    const calls = stubFetch({ contentRange: '40-59/100' });
    await fetchProducts({
      page: 3,
      search: 'Galaxy A',
      category: 'celulares',
      brandId: 2,
      condition: 'nuevo',
      featured: true,
      sort: 'price-asc',
    });
    const params = calls[0]!.url.searchParams;
    expect(params.get('category')).toBe('eq.celulares');
    expect(params.get('brand_id')).toBe('eq.2');
    expect(params.get('condition')).toBe('eq.nuevo');
    expect(params.get('featured')).toBe('eq.true');
    expect(params.get('name')).toBe('ilike.%Galaxy A%');
    expect(params.get('order')).toBe('price.asc,id.asc');
    expect(params.get('offset')).toBe('40');
    expect(params.get('limit')).toBe('20');
  });

  it.each([
    ['price-desc', 'price.desc,id.asc'],
    ['newest', 'created_at.desc,id.asc'],
    ['relevance', 'featured.desc.nullslast,price.desc,id.asc'],
  ] as const)('sorts %s as %s', async (sort, order) => {
    const calls = stubFetch({ contentRange: '*/0' });
    await fetchProducts({ page: 1, sort });
    expect(calls[0]!.url.searchParams.get('order')).toBe(order);
  });

  it('reports a failure as the spec words it', async () => {
    stubFetch({ status: 400, statusText: 'Bad Request', body: { message: 'bad filter', code: 'PGRST100' } });
    await expect(fetchProducts({ page: 1 })).rejects.toThrow('Error en la API: 400 Bad Request');
  });
});

describe('escapeLike', () => {
  it('matches % and _ literally', () => {
    expect(escapeLike('50%_off\\')).toBe('50\\%\\_off\\\\');
    expect(escapeLike('iPhone 15')).toBe('iPhone 15');
  });
});
