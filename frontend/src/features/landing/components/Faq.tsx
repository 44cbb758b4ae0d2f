import { ChevronDown } from 'lucide-react';
import { lazy, Suspense, useEffect } from 'react';
import { whenIdle } from '@/lib/preload';
import { faq } from '../content';

// The accordion (Radix) loads apart from the page, fetched while the browser is
// idle: the FAQ is far below the fold, and the landing stays within its JS
// budget. Until it arrives the questions show closed, as the accordion would.
const loadAccordion = () => import('@/components/ui/accordion');
const Accordion = lazy(() => loadAccordion().then((m) => ({ default: m.Accordion })));

export function Faq() {
  useEffect(() => whenIdle(loadAccordion), []);
  return (
    <Suspense fallback={<ClosedQuestions />}>
      <Accordion items={faq} />
    </Suspense>
  );
}

function ClosedQuestions() {
  return (
    <ul className="divide-y divide-slate-200 rounded-lg border border-slate-200 bg-white">
      {faq.map((item) => (
        <li key={item.question} className="flex items-center justify-between gap-4 px-5 py-4 font-medium text-slate-900">
          {item.question}
          <ChevronDown aria-hidden="true" className="h-5 w-5 shrink-0" />
        </li>
      ))}
    </ul>
  );
}
