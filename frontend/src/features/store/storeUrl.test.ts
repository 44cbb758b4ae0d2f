import { initialFilters } from './storeState';
import { filtersFromSearch, productFromSearch, withFilters } from './storeUrl';

describe('the store address', () => {
  it.each([
    ['', initialFilters],
    ['?categoria=celulares', { ...initialFilters, category: 'celulares' }],
    [
      '?buscar=galaxy&categoria=celulares&marca=2&condicion=nuevo&orden=price-asc',
      { search: 'galaxy', category: 'celulares', brandId: '2', condition: 'nuevo', sort: 'price-asc' },
    ],
    ['?marca=dos&orden=cheapest', initialFilters],
  ])('%s reads as its filters', (search, filters) => {
    expect(filtersFromSearch(new URLSearchParams(search))).toEqual(filters);
  });

  it('writes only what differs from the defaults and keeps the open product', () => {
    const written = withFilters(new URLSearchParams('producto=17&buscar=old'), { ...initialFilters, category: 'cables', search: ' ' });
    expect(written.toString()).toBe('producto=17&categoria=cables');
    expect(withFilters(new URLSearchParams(), initialFilters).toString()).toBe('');
  });

  it('round-trips every filter', () => {
    const filters = { search: 'funda 15', category: 'cases', brandId: '6', condition: 'usado', sort: 'newest' as const };
    expect(filtersFromSearch(withFilters(new URLSearchParams(), filters))).toEqual(filters);
  });

  it.each([
    ['?producto=17', 17],
    ['?producto=abc', null],
    ['', null],
  ])('%s opens product %s', (search, id) => {
    expect(productFromSearch(new URLSearchParams(search))).toBe(id);
  });
});
