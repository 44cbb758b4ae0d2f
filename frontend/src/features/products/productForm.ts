import { formatCOP } from '@/lib/format';
import type { Product } from '@/lib/types';

/** Where the product's image comes from (spec section 4). */
export type ImageMode = 'list' | 'url' | 'upload';

export interface ProductFormValues {
  name: string;
  description: string;
  /** COP, read from the typed digits as cents. */
  price: number;
  /** As typed; parsed as an integer when validated and saved. */
  quantity: string;
  category: string;
  condition: string;
  color: string;
  /** A brand id, or '' for none. */
  brandId: string;
  featured: boolean;
  imageMode: ImageMode;
  /** URL or predefined path (list and URL modes). */
  link_image: string;
  /** Public URL of an uploaded image (upload mode). */
  link_image_s3: string;
  upload_file: boolean;
  /** The file picked in upload mode, uploaded on submit. */
  file: File | null;
}

export type ProductFormField = 'name' | 'description' | 'price' | 'quantity' | 'category' | 'condition' | 'image';
export type ProductFormErrors = Partial<Record<ProductFormField, string>>;

export const messages = {
  name: 'El nombre es requerido',
  description: 'La descripción es requerida',
  price: 'El precio debe ser mayor a 0',
  quantity: 'La cantidad no puede ser negativa',
  category: 'La categoría es requerida',
  condition: 'La condición es requerida',
  imageUrl: 'La URL de la imagen es requerida',
  imageUpload: 'Debe seleccionar un archivo para subir',
  imageList: 'Debe seleccionar una imagen de la lista',
  imageFile: 'No se pudo cargar la imagen. Verifica que el archivo sea válido.',
} as const;

/** The price typed: digits only, read as cents (spec section 5), so '150000' is 1.500,00. */
export function parsePriceInput(text: string): number {
  const digits = text.replace(/\D/g, '');
  if (!digits) return 0;
  return Number(digits) / 100;
}

/** The price as the field shows it: COP with two decimals; empty for 0 so the placeholder shows. */
export function formatPriceInput(price: number): string {
  return price > 0 ? formatCOP(price, 2) : '';
}

/** The quantity typed, as an integer; 0 when empty or not a number (spec section 5). */
export function parseQuantity(text: string): number {
  const value = Number.parseInt(text.trim(), 10);
  return Number.isNaN(value) ? 0 : value;
}

export function emptyProductForm(): ProductFormValues {
  return {
    name: '',
    description: '',
    price: 0,
    quantity: '0',
    category: '',
    condition: '',
    color: '',
    brandId: '',
    featured: false,
    imageMode: 'list',
    link_image: '',
    link_image_s3: '',
    upload_file: false,
    file: null,
  };
}

/** The form filled from a stored product; the image mode follows where its image came from. */
export function productToForm(product: Product, predefinedPaths: readonly string[]): ProductFormValues {
  const linkImage = product.link_image ?? '';
  let imageMode: ImageMode = 'url';
  if (product.upload_file && product.link_image_s3) imageMode = 'upload';
  else if (predefinedPaths.includes(linkImage)) imageMode = 'list';
  else if (!linkImage) imageMode = 'list';
  return {
    name: product.name,
    description: product.description ?? '',
    price: Number(product.price) || 0,
    quantity: String(product.quantity ?? 0),
    category: product.category,
    condition: product.condition,
    color: product.color ?? '',
    brandId: product.brand_id == null ? '' : String(product.brand_id),
    featured: Boolean(product.featured),
    imageMode,
    link_image: imageMode === 'upload' ? '' : linkImage,
    link_image_s3: imageMode === 'upload' ? (product.link_image_s3 ?? '') : '',
    upload_file: imageMode === 'upload',
    file: null,
  };
}

/** Switching the image source clears every image field (spec section 4). */
export function switchImageMode(values: ProductFormValues, imageMode: ImageMode): ProductFormValues {
  return { ...values, imageMode, link_image: '', link_image_s3: '', upload_file: false, file: null };
}

/** Every rule of spec section 5; an empty object when the form is valid. */
export function validateProductForm(values: ProductFormValues): ProductFormErrors {
  const errors: ProductFormErrors = {};
  if (!values.name.trim()) errors.name = messages.name;
  if (!values.description.trim()) errors.description = messages.description;
  if (!(values.price > 0)) errors.price = messages.price;
  if (parseQuantity(values.quantity) < 0) errors.quantity = messages.quantity;
  if (!values.category) errors.category = messages.category;
  if (!values.condition) errors.condition = messages.condition;
  if (values.imageMode === 'url' && !values.link_image.trim()) errors.image = messages.imageUrl;
  if (values.imageMode === 'upload' && !values.file && !values.link_image_s3) errors.image = messages.imageUpload;
  if (values.imageMode === 'list' && !values.link_image) errors.image = messages.imageList;
  return errors;
}

/** The form field an edited input belongs to, whose error the edit clears. */
export function clearError(errors: ProductFormErrors, field: ProductFormField): ProductFormErrors {
  if (!errors[field]) return errors;
  const next = { ...errors };
  delete next[field];
  return next;
}

/** The columns a create or update writes, besides who and when. */
export interface ProductPayload {
  name: string;
  description: string;
  price: number;
  quantity: number;
  category: string;
  condition: string;
  color: string | null;
  brand_id: number | null;
  featured: boolean;
  link_image: string | null;
  link_image_s3: string | null;
  upload_file: boolean;
}

/**
 * The row to save. In upload mode the uploaded URL (new, or the one already
 * stored) goes to link_image_s3 and link_image is cleared; in URL and list
 * modes the uploaded fields are cleared (spec section 4).
 */
export function toPayload(values: ProductFormValues, uploadedUrl?: string): ProductPayload {
  const image =
    values.imageMode === 'upload'
      ? { link_image: null, link_image_s3: uploadedUrl ?? (values.link_image_s3 || null), upload_file: true }
      : { link_image: values.link_image.trim(), link_image_s3: null, upload_file: false };
  return {
    name: values.name.trim(),
    description: values.description.trim(),
    price: values.price,
    quantity: parseQuantity(values.quantity),
    category: values.category,
    condition: values.condition,
    color: values.color.trim() || null,
    brand_id: values.brandId ? Number(values.brandId) : null,
    featured: values.featured,
    ...image,
  };
}
