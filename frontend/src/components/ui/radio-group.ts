import type { KeyboardEvent } from 'react';

/**
 * Keyboard of a radio group made of buttons (WAI-ARIA's radio group pattern,
 * https://www.w3.org/WAI/ARIA/apg/patterns/radio/): one tab stop, on the
 * checked radio (or the first when none is); arrow keys, Home and End move
 * to another radio, check it and focus it.
 */
export function radioProps(index: number, checkedIndex: number, select: (index: number) => void) {
  const tabStop = checkedIndex >= 0 ? checkedIndex : 0;
  return {
    tabIndex: index === tabStop ? 0 : -1,
    onKeyDown(event: KeyboardEvent<HTMLElement>) {
      const radios = [...(event.currentTarget.closest('[role="radiogroup"]')?.querySelectorAll<HTMLElement>('[role="radio"]') ?? [])];
      const count = radios.length;
      if (count === 0) return;
      const next =
        event.key === 'ArrowRight' || event.key === 'ArrowDown'
          ? (index + 1) % count
          : event.key === 'ArrowLeft' || event.key === 'ArrowUp'
            ? (index - 1 + count) % count
            : event.key === 'Home'
              ? 0
              : event.key === 'End'
                ? count - 1
                : null;
      if (next === null) return;
      event.preventDefault();
      select(next);
      radios[next]?.focus();
    },
  };
}
