// `explain analyze` as a tree, as Studio's SQL editor draws it: each node
// with its type, relation, rows (actual and planned), time and cost, its
// children indented under it. The plan comes from
// `explain (analyze, format json)` run through `/_/api/sql`, so the editor's
// row limit and statement timeout hold.
import type { PlanNode } from './api';
import type { Words } from './i18n';

export function ExplainTree({ t, plan, executionTime }: { t: Words; plan: PlanNode; executionTime?: number }) {
  return (
    <section aria-label={t.planTree} className="rounded-md border border-slate-200 bg-white p-3">
      <h2 className="mb-2 font-semibold text-slate-900">{t.planTree}</h2>
      <ul role="tree" aria-label={t.planTree} className="text-sm">
        <Node t={t} node={plan} depth={1} />
      </ul>
      {executionTime !== undefined && <p className="mt-2 text-sm text-slate-700">{t.executionTime(executionTime)}</p>}
    </section>
  );
}

function Node({ t, node, depth }: { t: Words; node: PlanNode; depth: number }) {
  const children = node.Plans ?? [];
  const relation = node['Relation Name'] ?? node['Index Name'];
  return (
    <li role="treeitem" aria-level={depth} aria-expanded={children.length > 0 ? true : undefined} className="my-1">
      <div className="flex flex-wrap items-baseline gap-x-3 rounded-md border-l-4 border-brand-600 bg-slate-50 px-2 py-1">
        <span className="font-semibold text-slate-900" data-plan-node>
          {node['Node Type']}
        </span>
        {relation && <span className="font-mono text-slate-800">{relation}</span>}
        <span className="text-slate-700">{t.planRows(node['Actual Rows'], node['Plan Rows'])}</span>
        <span className="text-slate-700">{t.planTime(node['Actual Total Time'])}</span>
        <span className="text-slate-600">{t.planCost(node['Total Cost'])}</span>
      </div>
      {children.length > 0 && (
        <ul role="group" className="ml-5 border-l border-slate-300 pl-2">
          {children.map((child, i) => (
            <Node key={i} t={t} node={child} depth={depth + 1} />
          ))}
        </ul>
      )}
    </li>
  );
}
