import { useEffect } from 'react';

/** One document title per page (issue 18), set while the page is shown. */
export function useDocumentTitle(title: string): void {
  useEffect(() => {
    document.title = title;
  }, [title]);
}
