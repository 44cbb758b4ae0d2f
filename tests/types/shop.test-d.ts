// The shop's schema (sql/), through the file the frontend imports: the
// queries the shop makes are typed from it, end to end.
import { createClient } from '@supabase/supabase-js';
import { expectTypeOf } from 'expect-type';
import type { Database, Tables, TablesInsert, TablesUpdate } from '../../frontend/src/lib/database.types';

const shop = createClient<Database>('http://127.0.0.1:54321', 'sb_publishable_key');

type Data<Query> = Awaited<Query> extends { data: infer D } ? D : never;

// A select with an embed: a product's brand is an object or null (its key
// is nullable), typed by the Relationships of `products`.
const withBrand = shop.from('products').select('id, name, brands(name)');
expectTypeOf<Data<typeof withBrand>>().toEqualTypeOf<
  { id: number; name: string; brands: { name: string } | null }[] | null
>();

// A spread: the brand's columns among the product's own.
const spread = shop.from('products').select('id, ...brands(brand_name:name)');
expectTypeOf<Data<typeof spread>>().toEqualTypeOf<{ id: number; brand_name: string | null }[] | null>();

// Aggregates: a count and a sum by category.
const totals = shop.from('products').select('category, count(), price.sum()');
expectTypeOf<Data<typeof totals>>().toEqualTypeOf<{ category: string; count: number; sum: number }[] | null>();

// One-to-many the other way: a brand's products are an array.
const brandProducts = shop.from('brands').select('name, products(id)').single();
expectTypeOf<Data<typeof brandProducts>>().toEqualTypeOf<{ name: string; products: { id: number }[] } | null>();

// A view is read like a table.
const company = shop.from('shop_company').select('name').maybeSingle();
expectTypeOf<Data<typeof company>>().toEqualTypeOf<{ name: string | null } | null>();

// Insert: defaults and identities are optional, required columns are not.
shop.from('brands').insert({ name: 'Acme' });
// @ts-expect-error `name` has no default and is not nullable: an insert without it does not compile.
shop.from('brands').insert({ description: 'no name' });
// @ts-expect-error a column that does not exist.
shop.from('brands').insert({ name: 'Acme', colour: 'red' });
// @ts-expect-error `price` is a number.
shop.from('products').update({ price: 'cheap' });

// A filter on a column that does not exist does not compile.
// @ts-expect-error `colour` is not a column of `products`.
shop.from('products').select('id').eq('colour', 'red');

// The helpers read the default schema.
expectTypeOf<Tables<'brands'>['created_at']>().toEqualTypeOf<string>();
expectTypeOf<TablesInsert<'brands'>['created_at']>().toEqualTypeOf<string | undefined>();
expectTypeOf<TablesUpdate<'products'>['name']>().toEqualTypeOf<string | undefined>();
expectTypeOf<Tables<'shop_company'>['email']>().toEqualTypeOf<string | null>();
