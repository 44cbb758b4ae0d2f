import {
  clearError,
  emptyProductForm,
  formatPriceInput,
  messages,
  parsePriceInput,
  parseQuantity,
  productToForm,
  switchImageMode,
  toPayload,
  validateProductForm,
  type ProductFormValues,
} from './productForm';
import type { Product } from '@/lib/types';

// Intl output uses non-breaking spaces; compare with plain ones.
const plain = (text: string) => text.replace(/\s/g, ' ');

function valid(overrides: Partial<ProductFormValues> = {}): ProductFormValues {
  return {
    ...emptyProductForm(),
    name: 'iPhone 15',
    description: 'Nuevo, sellado',
    price: 3_999_000,
    quantity: '3',
    category: 'celulares',
    condition: 'nuevo',
    imageMode: 'list',
    link_image: '/assets/apple/iphone-15/negro.svg',
    ...overrides,
  };
}

describe('the price field', () => {
  it('keeps digits only and reads them as cents', () => {
    expect(parsePriceInput('150000')).toBe(1500);
    expect(parsePriceInput('$ 1.500,00')).toBe(1500);
    expect(parsePriceInput('12a3')).toBe(1.23);
    expect(parsePriceInput('')).toBe(0);
    expect(parsePriceInput('abc')).toBe(0);
  });

  it('shows Colombian pesos with two decimals', () => {
    expect(plain(formatPriceInput(1500))).toBe('$ 1.500,00');
    expect(plain(formatPriceInput(1.23))).toBe('$ 1,23');
    expect(plain(formatPriceInput(3_999_000))).toBe('$ 3.999.000,00');
    expect(formatPriceInput(0)).toBe('');
  });

  it('survives a keystroke on the formatted text (typing a digit, deleting the last)', () => {
    expect(parsePriceInput(`${formatPriceInput(1500)}5`)).toBe(15000.05);
    expect(parsePriceInput(formatPriceInput(1500).slice(0, -1))).toBe(150);
  });
});

describe('the quantity field', () => {
  it('is an integer, 0 by default', () => {
    expect(parseQuantity('7')).toBe(7);
    expect(parseQuantity('7.9')).toBe(7);
    expect(parseQuantity('-2')).toBe(-2);
    expect(parseQuantity('')).toBe(0);
    expect(parseQuantity('abc')).toBe(0);
    expect(emptyProductForm().quantity).toBe('0');
  });
});

describe('the product form validation (spec section 5)', () => {
  it('accepts a complete form, with brand and colour left out', () => {
    expect(validateProductForm(valid())).toEqual({});
  });

  it('gives every message of an empty form', () => {
    expect(validateProductForm(emptyProductForm())).toEqual({
      name: 'El nombre es requerido',
      description: 'La descripción es requerida',
      price: 'El precio debe ser mayor a 0',
      category: 'La categoría es requerida',
      condition: 'La condición es requerida',
      image: 'Debe seleccionar una imagen de la lista',
    });
  });

  it('rejects blank text', () => {
    expect(validateProductForm(valid({ name: '   ', description: ' \n' }))).toEqual({
      name: messages.name,
      description: messages.description,
    });
  });

  it('rejects a negative quantity but accepts 0', () => {
    expect(validateProductForm(valid({ quantity: '-1' }))).toEqual({ quantity: 'La cantidad no puede ser negativa' });
    expect(validateProductForm(valid({ quantity: '0' }))).toEqual({});
    expect(validateProductForm(valid({ quantity: '' }))).toEqual({});
  });

  it('needs the image of the chosen mode', () => {
    expect(validateProductForm(valid({ imageMode: 'url', link_image: ' ' }))).toEqual({
      image: 'La URL de la imagen es requerida',
    });
    expect(validateProductForm(valid({ imageMode: 'upload', link_image: '', file: null }))).toEqual({
      image: 'Debe seleccionar un archivo para subir',
    });
    expect(validateProductForm(valid({ imageMode: 'list', link_image: '' }))).toEqual({
      image: 'Debe seleccionar una imagen de la lista',
    });
    const file = new File(['x'], 'foto.png', { type: 'image/png' });
    expect(validateProductForm(valid({ imageMode: 'upload', link_image: '', file }))).toEqual({});
    // Editing an uploaded product keeps its image without a new file.
    expect(validateProductForm(valid({ imageMode: 'upload', link_image: '', link_image_s3: 'https://x/y.png' }))).toEqual({});
  });

  it('clears one field error on edit', () => {
    const errors = { name: messages.name, price: messages.price };
    expect(clearError(errors, 'name')).toEqual({ price: messages.price });
    expect(clearError(errors, 'quantity')).toBe(errors);
  });
});

describe('the image source', () => {
  it('switching mode clears every image field', () => {
    const file = new File(['x'], 'foto.png', { type: 'image/png' });
    const before = valid({ imageMode: 'upload', link_image: '/assets/a.svg', link_image_s3: 'https://s/x.png', upload_file: true, file });
    expect(switchImageMode(before, 'url')).toMatchObject({
      imageMode: 'url',
      link_image: '',
      link_image_s3: '',
      upload_file: false,
      file: null,
    });
    expect(switchImageMode(valid(), 'upload')).toMatchObject({ imageMode: 'upload', link_image: '' });
  });

  it('an upload stores the uploaded URL, clears link_image and sets upload_file', () => {
    const file = new File(['x'], 'foto.png', { type: 'image/png' });
    expect(toPayload(valid({ imageMode: 'upload', link_image: '', file }), 'https://gw/storage/v1/object/public/store-products/products/1-a.png')).toMatchObject({
      link_image: null,
      link_image_s3: 'https://gw/storage/v1/object/public/store-products/products/1-a.png',
      upload_file: true,
    });
  });

  it('URL and list modes clear the uploaded fields', () => {
    expect(toPayload(valid({ imageMode: 'url', link_image: ' https://img.example/a.jpg ' }))).toMatchObject({
      link_image: 'https://img.example/a.jpg',
      link_image_s3: null,
      upload_file: false,
    });
    expect(toPayload(valid())).toMatchObject({ link_image: '/assets/apple/iphone-15/negro.svg', link_image_s3: null, upload_file: false });
  });

  it('the payload trims text, parses the quantity and reads optional fields as null', () => {
    expect(toPayload(valid({ name: ' iPhone ', quantity: '', color: ' ', brandId: '' }))).toMatchObject({
      name: 'iPhone',
      quantity: 0,
      color: null,
      brand_id: null,
      price: 3_999_000,
    });
    expect(toPayload(valid({ brandId: '4', color: 'Negro' }))).toMatchObject({ brand_id: 4, color: 'Negro' });
  });
});

describe('a stored product in the form', () => {
  const base: Product = {
    id: 1,
    name: 'iPhone 15',
    description: 'd',
    price: 3_999_000,
    quantity: 2,
    category: 'celulares',
    condition: 'nuevo',
    color: null,
    link_image: '/assets/apple/iphone-15/negro.svg',
    link_image_s3: null,
    upload_file: false,
    featured: true,
    status: true,
    brand_id: 3,
    created_at: '2026-01-01T00:00:00Z',
    created_by: null,
    updated: null,
    updated_by: null,
  };

  it('opens in the mode its image came from', () => {
    expect(productToForm(base, ['/assets/apple/iphone-15/negro.svg'])).toMatchObject({
      imageMode: 'list',
      link_image: '/assets/apple/iphone-15/negro.svg',
      quantity: '2',
      brandId: '3',
      featured: true,
    });
    expect(productToForm({ ...base, link_image: 'https://x/y.jpg' }, [])).toMatchObject({ imageMode: 'url' });
    expect(
      productToForm({ ...base, link_image: null, link_image_s3: 'https://gw/p.png', upload_file: true }, []),
    ).toMatchObject({ imageMode: 'upload', link_image_s3: 'https://gw/p.png', upload_file: true });
  });
});
