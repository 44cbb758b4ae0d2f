import type { Tables } from './database.types';

/**
 * Rows of the REST contract (spec section 3; sql/100_shop.sql), as
 * `gateway gen types typescript` types them in database.types.ts: a column
 * changed in sql/ changes them, and the shop's build says where it matters.
 * `price` is numeric in PostgreSQL, a JSON number on the wire (COP); a
 * product is active unless `status` is explicitly false.
 */
export type Brand = Tables<'brands'>;

export interface Product extends Tables<'products'> {
  /** The joined brand, when the select embeds it. */
  brands?: Pick<Brand, 'id' | 'name' | 'description'> | null;
}

export type Profile = Tables<'profiles'>;

export type Company = Tables<'companies'>;
