/** Rows of the REST contract (spec section 3; sql/100_shop.sql). */

export interface Brand {
  id: number;
  name: string;
  description: string | null;
  status: boolean;
  created_at: string;
  created_by: string | null;
  updated_at: string | null;
  updated_by: string | null;
}

export interface Product {
  id: number;
  name: string;
  description: string | null;
  /** COP; numeric in PostgreSQL, a JSON number on the wire. */
  price: number;
  quantity: number;
  category: string;
  condition: string;
  color: string | null;
  link_image: string | null;
  link_image_s3: string | null;
  upload_file: boolean;
  featured: boolean;
  /** Active unless explicitly false. */
  status: boolean | null;
  brand_id: number | null;
  created_at: string;
  created_by: string | null;
  updated: string | null;
  updated_by: string | null;
  /** The joined brand, when the select embeds it. */
  brands?: Pick<Brand, 'id' | 'name' | 'description'> | null;
}

export interface Profile {
  user_id: string;
  full_name: string | null;
  company_id: number | null;
}

export interface Company {
  id: number;
  name: string;
  email: string | null;
  phone: string | null;
  display_category_stock: boolean;
  display_product_stock: boolean;
  display_users: boolean;
  updated_at: string | null;
  updated_by: string | null;
}
