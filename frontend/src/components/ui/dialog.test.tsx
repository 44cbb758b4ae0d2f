import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { Dialog, Sheet } from './dialog';

function Opener({ kind }: { kind: 'dialog' | 'sheet' }) {
  const [open, setOpen] = useState(false);
  const Panel = kind === 'dialog' ? Dialog : Sheet;
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        Abrir
      </button>
      <Panel open={open} onOpenChange={setOpen} title="Panel" description="Un panel de prueba">
        <button type="button">Dentro</button>
      </Panel>
    </>
  );
}

describe.each(['dialog', 'sheet'] as const)('a %s opened by a page button', (kind) => {
  it('gives focus back to that button when it closes', async () => {
    const user = userEvent.setup();
    render(<Opener kind={kind} />);
    const opener = screen.getByRole('button', { name: 'Abrir' });
    await user.click(opener);
    const panel = await screen.findByRole('dialog', { name: 'Panel' });
    expect(panel).toContainElement(document.activeElement as HTMLElement);
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    await vi.waitFor(() => expect(opener).toHaveFocus());
  });
});

describe('a dialog with a form', () => {
  it('starts on its first field, not on the close button', async () => {
    function FormDialog() {
      const [open, setOpen] = useState(false);
      return (
        <>
          <button type="button" onClick={() => setOpen(true)}>
            Abrir
          </button>
          <Dialog open={open} onOpenChange={setOpen} title="Nueva marca">
            <label>
              Nombre
              <input />
            </label>
            <label>
              Descripción
              <textarea />
            </label>
          </Dialog>
        </>
      );
    }
    const user = userEvent.setup();
    render(<FormDialog />);
    await user.click(screen.getByRole('button', { name: 'Abrir' }));
    await screen.findByRole('dialog', { name: 'Nueva marca' });
    await vi.waitFor(() => expect(screen.getByLabelText('Nombre')).toHaveFocus());
  });
});
