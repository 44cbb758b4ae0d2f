import { fireEvent, render, screen } from '@testing-library/react';
import { ImagePreview } from './ImagePreview';

describe('the image preview', () => {
  it("shows 'Error al cargar' when the image fails, and tries again for another image", () => {
    const { rerender } = render(<ImagePreview src="https://img.example/roto.png" alt="Vista previa de la imagen" />);
    fireEvent.error(screen.getByRole('img', { name: 'Vista previa de la imagen' }));
    expect(screen.getByText('Error al cargar')).toBeInTheDocument();
    rerender(<ImagePreview src="/assets/apple/iphone-16/negro.svg" alt="Vista previa de la imagen" />);
    expect(screen.queryByText('Error al cargar')).not.toBeInTheDocument();
    expect(screen.getByRole('img', { name: 'Vista previa de la imagen' })).toHaveAttribute('src', '/assets/apple/iphone-16/negro.svg');
  });
});
