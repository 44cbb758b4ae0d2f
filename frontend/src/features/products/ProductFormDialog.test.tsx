import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { ProductFormDialog } from './ProductFormDialog';

vi.mock('./api/fetchActiveBrands', () => ({
  fetchActiveBrands: vi.fn(async () => [
    { id: 1, name: 'Apple', description: null, status: true, created_at: '', created_by: null, updated_at: null, updated_by: null },
  ]),
}));
vi.mock('./api/createProduct', () => ({ createProduct: vi.fn() }));
vi.mock('./api/updateProduct', () => ({ updateProduct: vi.fn() }));
vi.mock('./api/uploadProductImage', () => ({ uploadProductImage: vi.fn() }));

function renderForm() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const user = userEvent.setup();
  render(
    <QueryClientProvider client={client}>
      <ProductFormDialog open onOpenChange={() => {}} product={null} />
    </QueryClientProvider>,
  );
  return { user, dialog: screen.getByRole('dialog', { name: 'Nuevo producto' }) };
}

// userEvent types key by key: generous on a busy 2-core machine.
describe('the product form', () => {
  it('shows every message on an empty submit and clears each one on edit', async () => {
    const { user, dialog } = renderForm();
    await user.click(within(dialog).getByRole('button', { name: 'Crear' }));
    for (const message of [
      'El nombre es requerido',
      'La descripción es requerida',
      'El precio debe ser mayor a 0',
      'La categoría es requerida',
      'La condición es requerida',
      'Debe seleccionar una imagen de la lista',
    ]) {
      expect(within(dialog).getByText(message)).toBeInTheDocument();
    }
    // The first field to fix takes the focus on the next frame; typing
    // elsewhere before that frame (a busy machine delays it) would lose keys.
    await waitFor(() => expect(within(dialog).getByLabelText('Nombre')).toHaveFocus());

    await user.type(within(dialog).getByLabelText('Nombre'), 'Moto G');
    expect(within(dialog).queryByText('El nombre es requerido')).not.toBeInTheDocument();
    expect(within(dialog).getByText('La descripción es requerida')).toBeInTheDocument();

    await user.type(within(dialog).getByLabelText('Precio'), '150000');
    expect(within(dialog).queryByText('El precio debe ser mayor a 0')).not.toBeInTheDocument();
    expect((within(dialog).getByLabelText('Precio') as HTMLInputElement).value.replace(/\s/g, ' ')).toBe('$ 1.500,00');

    await user.selectOptions(within(dialog).getByLabelText('Categoría'), 'celulares');
    expect(within(dialog).queryByText('La categoría es requerida')).not.toBeInTheDocument();

    await user.click(within(dialog).getByRole('radio', { name: /iPhone 13 Medianoche/ }));
    expect(within(dialog).queryByText('Debe seleccionar una imagen de la lista')).not.toBeInTheDocument();
  });

  it('refuses a negative quantity', async () => {
    const { user, dialog } = renderForm();
    const quantity = within(dialog).getByLabelText('Cantidad');
    expect(quantity).toHaveValue(0);
    await user.clear(quantity);
    await user.type(quantity, '-3');
    await user.click(within(dialog).getByRole('button', { name: 'Crear' }));
    expect(within(dialog).getByText('La cantidad no puede ser negativa')).toBeInTheDocument();
  });

  it('asks for the image of each mode, and a mode switch clears the chosen image', async () => {
    const { user, dialog } = renderForm();
    await user.click(within(dialog).getByRole('radio', { name: /iPhone 13 Medianoche/ }));
    expect(within(dialog).getByRole('radio', { name: /iPhone 13 Medianoche/ })).toHaveAttribute('aria-checked', 'true');

    await user.click(within(dialog).getByRole('radio', { name: 'URL' }));
    const url = within(dialog).getByLabelText('URL de la imagen');
    expect(url).toHaveValue('');
    await user.click(within(dialog).getByRole('button', { name: 'Crear' }));
    expect(within(dialog).getByText('La URL de la imagen es requerida')).toBeInTheDocument();
    // As above: the first field to fix (the name) takes the focus on the next
    // frame; typing the URL before that frame would lose keys to the move.
    await waitFor(() => expect(within(dialog).getByLabelText('Nombre')).toHaveFocus());
    await user.type(url, 'https://img.example/a.jpg');
    expect(within(dialog).queryByText('La URL de la imagen es requerida')).not.toBeInTheDocument();

    await user.click(within(dialog).getByRole('radio', { name: 'Subir archivo' }));
    await user.click(within(dialog).getByRole('button', { name: 'Crear' }));
    expect(within(dialog).getByText('Debe seleccionar un archivo para subir')).toBeInTheDocument();

    await user.click(within(dialog).getByRole('radio', { name: 'URL' }));
    expect(within(dialog).getByLabelText('URL de la imagen')).toHaveValue('');

    await user.click(within(dialog).getByRole('radio', { name: 'Lista de imágenes' }));
    expect(within(dialog).getByRole('radio', { name: /iPhone 13 Medianoche/ })).toHaveAttribute('aria-checked', 'false');
  });

  it('refuses a file that is not an image or is over 10 MB', async () => {
    const { user, dialog } = renderForm();
    await user.click(within(dialog).getByRole('radio', { name: 'Subir archivo' }));
    const input = within(dialog).getByLabelText('Archivo de imagen') as HTMLInputElement;
    await userEvent.setup({ applyAccept: false }).upload(input, new File(['%PDF'], 'doc.pdf', { type: 'application/pdf' }));
    expect(
      within(dialog).getByText('No se pudo cargar la imagen. Verifica que el archivo sea válido.'),
    ).toBeInTheDocument();

    const big = new File(['x'], 'grande.png', { type: 'image/png' });
    Object.defineProperty(big, 'size', { value: 10_485_761 });
    await user.upload(input, big);
    expect(
      within(dialog).getByText('No se pudo cargar la imagen. Verifica que el archivo sea válido.'),
    ).toBeInTheDocument();

    await user.upload(input, new File(['png'], 'foto.png', { type: 'image/png' }));
    expect(
      within(dialog).queryByText('No se pudo cargar la imagen. Verifica que el archivo sea válido.'),
    ).not.toBeInTheDocument();
    expect(within(dialog).getByText(/foto\.png/)).toBeInTheDocument();
  });

  it('filters the predefined images by image category', async () => {
    const { user, dialog } = renderForm();
    const list = within(dialog).getByRole('radiogroup', { name: 'Imágenes predefinidas' });
    expect(within(list).getAllByRole('radio')).toHaveLength(26);
    await user.selectOptions(within(dialog).getByLabelText('Categoría de imagen'), 'Apple Watch');
    expect(within(list).getAllByRole('radio')).toHaveLength(1);
  });
});
