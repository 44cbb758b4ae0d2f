import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { BrandFormDialog } from './BrandFormDialog';

vi.mock('./api/createBrand', () => ({ createBrand: vi.fn() }));
vi.mock('./api/updateBrand', () => ({ updateBrand: vi.fn() }));

describe('the brand form', () => {
  it('validates name and description, clears errors on edit and starts active', async () => {
    const user = userEvent.setup();
    render(
      <QueryClientProvider client={new QueryClient()}>
        <BrandFormDialog open onOpenChange={() => {}} brand={null} />
      </QueryClientProvider>,
    );
    const dialog = screen.getByRole('dialog', { name: 'Nueva marca' });
    expect(within(dialog).getByLabelText('Marca activa')).toBeChecked();

    await user.type(within(dialog).getByLabelText('Nombre'), '   ');
    await user.click(within(dialog).getByRole('button', { name: 'Crear' }));
    expect(within(dialog).getByText('El nombre es requerido')).toBeInTheDocument();
    expect(within(dialog).getByText('La descripción es requerida')).toBeInTheDocument();
    // The first field to fix takes the focus on the next frame; typing before
    // that frame (a busy machine delays it) would lose keys to the move.
    await waitFor(() => expect(within(dialog).getByLabelText('Nombre')).toHaveFocus());

    await user.type(within(dialog).getByLabelText('Descripción'), 'Teléfonos');
    expect(within(dialog).queryByText('La descripción es requerida')).not.toBeInTheDocument();
    expect(within(dialog).getByText('El nombre es requerido')).toBeInTheDocument();
  });
});
