import type { Product } from '@/lib/types';
import {
  applyChange,
  hasActiveFilters,
  hasMore,
  initialStoreState,
  isLoadingPage,
  storeReducer,
  toRequest,
  type StoreState,
} from './storeState';

const product = (id: number): Product => ({
  id,
  name: `Producto ${id}`,
  description: null,
  price: 1000 * id,
  quantity: 3,
  category: 'celulares',
  condition: 'nuevo',
  color: null,
  link_image: null,
  link_image_s3: null,
  upload_file: false,
  featured: false,
  status: true,
  brand_id: null,
  created_at: '2026-01-01T00:00:00Z',
  created_by: null,
  updated: null,
  updated_by: null,
});
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => product(from + i));

function loaded(state: StoreState, products: Product[], total: number): StoreState {
  return storeReducer(state, { type: 'loaded', filters: state.filters, page: state.page, products, total });
}

describe('the store list', () => {
  it('starts on page 1 with nothing loaded', () => {
    expect(initialStoreState.page).toBe(1);
    expect(isLoadingPage(initialStoreState)).toBe(true);
    expect(hasMore(initialStoreState)).toBe(false);
  });

  it('page 1 replaces the list', () => {
    let state = loaded(initialStoreState, range(1, 20), 45);
    state = storeReducer(state, { type: 'filter', key: 'category', value: 'tablet' });
    state = loaded(state, range(100, 104), 5);
    expect(state.products.map((p) => p.id)).toEqual([100, 101, 102, 103, 104]);
    expect(state.total).toBe(5);
  });

  it('later pages append', () => {
    let state = loaded(initialStoreState, range(1, 20), 45);
    expect(hasMore(state)).toBe(true);
    state = storeReducer(state, { type: 'loadMore' });
    expect(state.page).toBe(2);
    expect(isLoadingPage(state)).toBe(true);
    state = loaded(state, range(21, 40), 45);
    state = storeReducer(state, { type: 'loadMore' });
    state = loaded(state, range(41, 45), 45);
    expect(state.products.map((p) => p.id)).toEqual(range(1, 45).map((p) => p.id));
    expect(hasMore(state)).toBe(false);
  });

  it('hasMore comes from the count', () => {
    expect(hasMore(loaded(initialStoreState, range(1, 20), 20))).toBe(false);
    expect(hasMore(loaded(initialStoreState, range(1, 20), 21))).toBe(true);
    expect(hasMore(loaded(initialStoreState, [], 0))).toBe(false);
  });

  it('does not ask for a page past the last, nor twice at once', () => {
    const last = loaded(initialStoreState, range(1, 7), 7);
    expect(storeReducer(last, { type: 'loadMore' })).toBe(last);
    const asking = storeReducer(loaded(initialStoreState, range(1, 20), 30), { type: 'loadMore' });
    expect(storeReducer(asking, { type: 'loadMore' })).toBe(asking);
  });

  it.each(['search', 'category', 'brandId', 'condition', 'sort'] as const)('a change of %s goes back to page 1', (key) => {
    let state = loaded(initialStoreState, range(1, 20), 45);
    state = storeReducer(state, { type: 'loadMore' });
    state = loaded(state, range(21, 40), 45);
    state = storeReducer(state, { type: 'filter', key, value: key === 'sort' ? 'price-asc' : 'x' });
    expect(state.page).toBe(1);
    expect(isLoadingPage(state)).toBe(true);
  });

  it('the same value is no change', () => {
    const state = loaded(initialStoreState, range(1, 20), 45);
    expect(storeReducer(state, { type: 'filter', key: 'category', value: '' })).toBe(state);
    expect(storeReducer(state, { type: 'reset' })).toBe(state);
  });

  it('reset clears every filter and goes back to page 1', () => {
    let state = storeReducer(initialStoreState, { type: 'filter', key: 'condition', value: 'usado' });
    state = loaded(state, range(1, 20), 30);
    state = storeReducer(state, { type: 'loadMore' });
    state = storeReducer(state, { type: 'reset' });
    expect(state.filters).toEqual(initialStoreState.filters);
    expect(state.page).toBe(1);
  });

  it('drops a page that arrives for filters no longer chosen', () => {
    const before = initialStoreState;
    const after = storeReducer(before, { type: 'filter', key: 'search', value: 'iphone' });
    const stale = storeReducer(after, { type: 'loaded', filters: before.filters, page: 1, products: range(1, 3), total: 3 });
    expect(stale).toBe(after);
  });

  it('lists a product only once when rows shift between pages', () => {
    let state = loaded(initialStoreState, range(1, 20), 40);
    state = storeReducer(state, { type: 'loadMore' });
    state = loaded(state, range(20, 39), 40);
    expect(state.products).toHaveLength(39);
    expect(new Set(state.products.map((p) => p.id)).size).toBe(39);
  });
});

describe('a change from the server (Realtime)', () => {
  const listed = () => loaded(initialStoreState, range(1, 3), 3);

  it('updates a listed product in place', () => {
    const state = storeReducer(listed(), { type: 'changed', product: { ...product(2), quantity: 0 } });
    expect(state.products.map((p) => p.quantity)).toEqual([3, 0, 3]);
    expect(state.total).toBe(3);
  });

  it('takes a deactivated product out of the list and the count', () => {
    const state = storeReducer(listed(), { type: 'changed', product: { ...product(2), status: false } });
    expect(state.products.map((p) => p.id)).toEqual([1, 3]);
    expect(state.total).toBe(2);
  });

  it('ignores a product that is not listed', () => {
    const before = listed();
    expect(storeReducer(before, { type: 'changed', product: { ...product(9), quantity: 0 } })).toBe(before);
  });

  it('keeps the embedded brand while the brand stays, and drops it when it changes', () => {
    const branded = { ...product(1), brand_id: 4, brands: { id: 4, name: 'Marca', description: null } };
    expect(applyChange(branded, { id: 1, quantity: 1, brand_id: 4 }).brands?.name).toBe('Marca');
    expect(applyChange(branded, { id: 1, brand_id: 5 }).brands).toBeNull();
  });
});

describe('toRequest', () => {
  it('leaves out the filters not chosen', () => {
    expect(toRequest(initialStoreState.filters, 1)).toEqual({
      page: 1,
      search: undefined,
      category: undefined,
      brandId: undefined,
      condition: undefined,
      sort: 'relevance',
    });
  });

  it('passes the chosen ones, the brand as a number and the search trimmed', () => {
    expect(
      toRequest({ search: '  galaxy ', category: 'celulares', brandId: '2', condition: 'nuevo', sort: 'newest' }, 3),
    ).toEqual({ page: 3, search: 'galaxy', category: 'celulares', brandId: 2, condition: 'nuevo', sort: 'newest' });
  });

  it('counts the default sort as no filter', () => {
    expect(hasActiveFilters(initialStoreState.filters)).toBe(false);
    expect(hasActiveFilters({ ...initialStoreState.filters, search: '   ' })).toBe(false);
    expect(hasActiveFilters({ ...initialStoreState.filters, sort: 'price-asc' })).toBe(true);
  });
});
