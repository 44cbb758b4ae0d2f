import { Search, X } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { Input, Label, Select } from '@/components/ui/input';
import { categories, conditions } from '@/lib/categories';
import type { StoreSort } from '../api/fetchProducts';
import type { StoreBrand } from '../api/fetchStoreBrands';
import type { StoreFilters } from '../storeState';
import { useHydrated } from '@/lib/prerender';

/** The sort choices behind the 'relevance' filter (see api/fetchProducts.ts). */
const sortOptions: ReadonlyArray<{ value: StoreSort; label: string }> = [
  { value: 'relevance', label: 'Relevancia' },
  { value: 'price-asc', label: 'Precio: menor a mayor' },
  { value: 'price-desc', label: 'Precio: mayor a menor' },
  { value: 'newest', label: 'Más recientes' },
];

interface FilterBarProps {
  searchText: string;
  onSearchText: (text: string) => void;
  filters: StoreFilters;
  onFilter: (key: Exclude<keyof StoreFilters, 'search'>, value: string) => void;
  onClear: (() => void) | null;
  /** Category ids the server lists. */
  serverCategories: readonly string[];
  brands: readonly StoreBrand[];
}

const noBrands: readonly StoreBrand[] = [];

export function FilterBar({ searchText, onSearchText, filters, onFilter, onClear, serverCategories, brands: loadedBrands }: FilterBarProps) {
  // The lists are not in the page the gateway serves (lib/prerender.tsx):
  // whichever arrives first, hydration sees them empty, as the pre-rendered
  // page has them. Only this bar renders again once hydrated.
  const hydrated = useHydrated();
  const brands = hydrated ? loadedBrands : noBrands;
  // Only the fixed categories that the server also lists (spec section 2).
  const offered = hydrated ? categories.filter((c) => serverCategories.includes(c.id)) : [];
  return (
    <div className="rounded-xl border border-slate-200 bg-white p-4 shadow-sm">
      <form role="search" onSubmit={(event) => event.preventDefault()} className="flex flex-col gap-4">
        <div className="relative">
          <Label htmlFor="store-search" className="sr-only">
            Buscar productos
          </Label>
          <Search aria-hidden="true" className="pointer-events-none absolute left-3 top-1/2 h-5 w-5 -translate-y-1/2 text-slate-500" />
          <Input
            id="store-search"
            type="search"
            value={searchText}
            onChange={(event) => onSearchText(event.target.value)}
            placeholder="Buscar productos..."
            autoComplete="off"
            className="h-11 pl-10 text-base"
          />
        </div>
        <div className="grid grid-cols-2 gap-3 lg:grid-cols-[repeat(4,minmax(0,1fr))_auto]">
          <FilterSelect id="filter-category" label="Categoría" value={filters.category} onChange={(v) => onFilter('category', v)}>
            <option value="">Todas</option>
            {offered.map((c) => (
              <option key={c.id} value={c.id}>
                {c.label}
              </option>
            ))}
          </FilterSelect>
          <FilterSelect id="filter-brand" label="Marca" value={filters.brandId} onChange={(v) => onFilter('brandId', v)}>
            <option value="">Todas</option>
            {brands.map((b) => (
              <option key={b.id} value={String(b.id)}>
                {b.name}
              </option>
            ))}
          </FilterSelect>
          <FilterSelect id="filter-condition" label="Condición" value={filters.condition} onChange={(v) => onFilter('condition', v)}>
            <option value="">Todas</option>
            {conditions.map((c) => (
              <option key={c.id} value={c.id}>
                {c.label}
              </option>
            ))}
          </FilterSelect>
          <FilterSelect id="filter-sort" label="Relevancia" value={filters.sort} onChange={(v) => onFilter('sort', v)}>
            {sortOptions.map((o) => (
              <option key={o.value} value={o.value}>
                {o.label}
              </option>
            ))}
          </FilterSelect>
          {onClear ? (
            <Button variant="ghost" onClick={onClear} className="col-span-2 self-end lg:col-span-1">
              <X aria-hidden="true" className="h-4 w-4" />
              Limpiar filtros
            </Button>
          ) : null}
        </div>
      </form>
    </div>
  );
}

function FilterSelect({
  id,
  label,
  value,
  onChange,
  children,
}: {
  id: string;
  label: string;
  value: string;
  onChange: (value: string) => void;
  children: React.ReactNode;
}) {
  return (
    <div className="flex min-w-0 flex-col gap-1">
      <Label htmlFor={id} className="text-xs text-slate-600">
        {label}
      </Label>
      <Select id={id} value={value} onChange={(event) => onChange(event.target.value)}>
        {children}
      </Select>
    </div>
  );
}
