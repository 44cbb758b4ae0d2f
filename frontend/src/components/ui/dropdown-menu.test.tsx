import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { DropdownMenu } from './dropdown-menu';

describe('the dropdown menu', () => {
  it('opens, moves with the arrows, selects, and closes with Escape back on its button', async () => {
    const user = userEvent.setup();
    const edit = vi.fn();
    const deactivate = vi.fn();
    render(
      <DropdownMenu
        label="Acciones de Apple"
        trigger="⋮"
        items={[
          { label: 'Editar', onSelect: edit },
          { label: 'Desactivar', onSelect: deactivate },
        ]}
      />,
    );
    const button = screen.getByRole('button', { name: 'Acciones de Apple' });
    expect(button).toHaveAttribute('aria-expanded', 'false');

    await user.click(button);
    expect(button).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('menuitem', { name: 'Editar' })).toHaveFocus();
    await user.keyboard('{ArrowDown}');
    expect(screen.getByRole('menuitem', { name: 'Desactivar' })).toHaveFocus();
    await user.keyboard('{ArrowDown}');
    expect(screen.getByRole('menuitem', { name: 'Editar' })).toHaveFocus();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
    expect(button).toHaveFocus();

    await user.keyboard('{ArrowDown}');
    await user.keyboard('{End}{Enter}');
    expect(deactivate).toHaveBeenCalledOnce();
    expect(edit).not.toHaveBeenCalled();
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
  });

  it('closes on a click outside', async () => {
    const user = userEvent.setup();
    render(
      <div>
        <p>fuera</p>
        <DropdownMenu label="Menú" trigger="⋮" items={[{ label: 'Editar', onSelect: () => {} }]} />
      </div>,
    );
    await user.click(screen.getByRole('button', { name: 'Menú' }));
    expect(screen.getByRole('menu')).toBeInTheDocument();
    await user.click(screen.getByText('fuera'));
    expect(screen.queryByRole('menu')).not.toBeInTheDocument();
  });
});
