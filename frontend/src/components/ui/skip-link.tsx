/**
 * The id of every page's `<main>`, focusable by script (`tabIndex={-1}`): a
 * skip link needs a target that exists and takes focus (axe's `skip-link`
 * rule, which Lighthouse's accessibility score runs).
 */
export const MAIN_CONTENT_ID = 'contenido';

/**
 * 'Saltar al contenido principal': the first tab stop of every page, shown
 * when focused, moving focus to the page's `<main>` past headers and menus
 * (WCAG 2.4.1, Bypass Blocks).
 */
export function SkipLink() {
  return (
    <a
      href={`#${MAIN_CONTENT_ID}`}
      onClick={(event) => {
        const main = document.querySelector<HTMLElement>('main');
        if (!main) return;
        event.preventDefault();
        main.tabIndex = -1;
        main.focus();
      }}
      className="sr-only focus:not-sr-only focus:fixed focus:left-3 focus:top-3 focus:z-50 focus:rounded-md focus:bg-white focus:px-4 focus:py-2 focus:font-semibold focus:text-brand-700 focus:shadow-lg focus:outline-2 focus:outline-brand-700"
    >
      Saltar al contenido principal
    </a>
  );
}
