import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { radioProps } from './radio-group';

function Picker() {
  const options = ['Lista', 'URL', 'Subir'];
  const [checked, setChecked] = useState(1);
  return (
    <div role="radiogroup" aria-label="Origen">
      {options.map((label, index) => (
        <button key={label} type="button" role="radio" aria-checked={checked === index} onClick={() => setChecked(index)} {...radioProps(index, checked, setChecked)}>
          {label}
        </button>
      ))}
    </div>
  );
}

describe('radioProps', () => {
  it('makes one tab stop, on the checked radio', () => {
    render(<Picker />);
    expect(screen.getAllByRole('radio').map((radio) => radio.tabIndex)).toEqual([-1, 0, -1]);
  });

  it.each([
    ['{ArrowRight}', 'Subir'],
    ['{ArrowDown}', 'Subir'],
    ['{ArrowLeft}', 'Lista'],
    ['{ArrowUp}', 'Lista'],
    ['{ArrowRight}{ArrowRight}', 'Lista'],
    ['{Home}', 'Lista'],
    ['{End}', 'Subir'],
  ])('%s from URL checks and focuses %s', async (keys, expected) => {
    const user = userEvent.setup();
    render(<Picker />);
    await user.tab();
    expect(screen.getByRole('radio', { name: 'URL' })).toHaveFocus();
    await user.keyboard(keys);
    const radio = screen.getByRole('radio', { name: expected });
    expect(radio).toHaveFocus();
    expect(radio).toHaveAttribute('aria-checked', 'true');
    expect(radio.tabIndex).toBe(0);
  });
});
