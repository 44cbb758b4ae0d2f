// The console's API docs (Studio's API page): for each table and function
// of the exposed schemas, its columns and the supabase-js calls that use it,
// with the project's URL and publishable key. The gateway writes the calls
// from its schema cache and OpenAPI document (gateway/src/console/apidocs.rs).
import { useEffect, useState } from 'react';
import { call } from './api';
import type { Words } from './i18n';
import { focusRing, secondary } from './styles';

export interface DocColumn {
  name: string;
  type: string;
  required: boolean;
  primaryKey: boolean;
  default: string | null;
}

export interface DocCall {
  kind: 'read' | 'readColumns' | 'readPage' | 'filter' | 'insert' | 'update' | 'upsert' | 'delete' | 'subscribe';
  code: string;
}

export interface DocTable {
  name: string;
  view: boolean;
  writable: boolean;
  columns: DocColumn[];
  calls: DocCall[];
}

export interface DocFunction {
  name: string;
  arguments: { name: string; type: string; required: boolean }[];
  call: string;
}

export interface ApiDocsAnswer {
  url: string;
  key: string | null;
  setup: string;
  schemas: { schema: string; tables: DocTable[]; functions: DocFunction[] }[];
}

export const apiDocs = () => call<ApiDocsAnswer>('GET', '/api-docs');

type Chosen = { schema: string; kind: 'table' | 'function'; name: string } | null;

export function ApiDocs({ t }: { t: Words }) {
  const [docs, setDocs] = useState<ApiDocsAnswer | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [chosen, setChosen] = useState<Chosen>(null);

  useEffect(() => {
    apiDocs().then(setDocs, (e: Error) => setError(e.message));
  }, []);

  if (error) return <p role="alert" className="text-red-700">{error}</p>;
  if (!docs) return <p className="text-slate-600">{t.loading}</p>;

  const entry = (schema: string, kind: 'table' | 'function', name: string, label: string) => {
    const current = chosen?.schema === schema && chosen.kind === kind && chosen.name === name;
    return (
      <li key={`${kind}:${schema}.${name}`}>
        <button
          type="button"
          aria-current={current ? 'true' : undefined}
          className={`w-full rounded-md px-2 py-1 text-left text-sm ${focusRing} ${
            current ? 'bg-brand-100 text-brand-900' : 'text-slate-800 hover:bg-slate-100'
          }`}
          onClick={() => setChosen({ schema, kind, name })}
        >
          {label}
        </button>
      </li>
    );
  };
  const schema = docs.schemas.find((s) => s.schema === chosen?.schema);
  const table = chosen?.kind === 'table' ? schema?.tables.find((x) => x.name === chosen.name) : undefined;
  const fn = chosen?.kind === 'function' ? schema?.functions.find((x) => x.name === chosen.name) : undefined;

  return (
    <div className="flex flex-col gap-4 md:flex-row">
      <nav aria-label={t.apiDocs} className="md:w-64 md:shrink-0">
        <button
          type="button"
          aria-current={chosen === null ? 'true' : undefined}
          className={`mb-2 w-full rounded-md px-2 py-1 text-left text-sm font-semibold ${focusRing} ${
            chosen === null ? 'bg-brand-100 text-brand-900' : 'text-slate-800 hover:bg-slate-100'
          }`}
          onClick={() => setChosen(null)}
        >
          {t.apiIntroduction}
        </button>
        <div className="flex max-h-[70vh] flex-col gap-3 overflow-y-auto">
          {docs.schemas.map((s) => (
            <div key={s.schema}>
              <h2 className="mb-1 text-sm font-semibold uppercase text-slate-600">
                {t.tablesAndViews} · {s.schema}
              </h2>
              <ul className="flex flex-col gap-1">
                {s.tables.map((x) => entry(s.schema, 'table', x.name, `${s.schema}.${x.name}`))}
              </ul>
              {s.functions.length > 0 && (
                <>
                  <h2 className="mb-1 mt-2 text-sm font-semibold uppercase text-slate-600">
                    {t.functions} · {s.schema}
                  </h2>
                  <ul className="flex flex-col gap-1">
                    {s.functions.map((x) => entry(s.schema, 'function', x.name, `${s.schema}.${x.name}()`))}
                  </ul>
                </>
              )}
            </div>
          ))}
        </div>
      </nav>
      <section className="min-w-0 flex-1" aria-live="polite">
        {table && schema ? (
          <TableDocs t={t} schema={schema.schema} table={table} />
        ) : fn && schema ? (
          <FunctionDocs t={t} schema={schema.schema} fn={fn} />
        ) : (
          <Introduction t={t} docs={docs} />
        )}
      </section>
    </div>
  );
}

function Introduction({ t, docs }: { t: Words; docs: ApiDocsAnswer }) {
  return (
    <article>
      <h2 className="text-xl font-bold text-slate-900">{t.apiIntroduction}</h2>
      <p className="mt-2 text-sm text-slate-700">{t.apiIntroductionText}</p>
      <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
        <dt className="font-semibold text-slate-900">{t.projectUrl}</dt>
        <dd className="break-all font-mono text-slate-800">{docs.url}</dd>
        <dt className="font-semibold text-slate-900">{t.publishableKey}</dt>
        <dd className="break-all font-mono text-slate-800">{docs.key ?? t.noPublishableKey}</dd>
      </dl>
      <Code t={t} title={t.initializing} code={docs.setup} />
    </article>
  );
}

function TableDocs({ t, schema, table }: { t: Words; schema: string; table: DocTable }) {
  return (
    <article>
      <h2 className="text-xl font-bold text-slate-900">
        {schema}.{table.name}
      </h2>
      <p className="text-sm text-slate-600">{table.view ? t.view : t.table}</p>
      <section className="mt-4">
        <h3 className="mb-1 font-semibold text-slate-900">{t.columns}</h3>
        <div className="overflow-x-auto">
          <table className="min-w-full border border-slate-200 bg-white text-sm">
            <thead className="bg-slate-100 text-left">
              <tr>
                <th className="px-2 py-1">{t.name}</th>
                <th className="px-2 py-1">{t.type}</th>
                <th className="px-2 py-1">{t.requiredOnInsert}</th>
              </tr>
            </thead>
            <tbody>
              {table.columns.map((column) => (
                <tr key={column.name} className="border-t border-slate-200">
                  <td className="px-2 py-1 font-mono">
                    {column.name}
                    {column.primaryKey && <span className="ml-1 text-xs text-slate-600">({t.primaryKey})</span>}
                  </td>
                  <td className="px-2 py-1 font-mono">{column.type}</td>
                  <td className="px-2 py-1">{column.required ? t.yes : t.no}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      {table.calls.map((c) => (
        <Code key={c.kind} t={t} title={t.callTitles[c.kind]} code={c.code} />
      ))}
    </article>
  );
}

function FunctionDocs({ t, schema, fn }: { t: Words; schema: string; fn: DocFunction }) {
  return (
    <article>
      <h2 className="text-xl font-bold text-slate-900">
        {schema}.{fn.name}()
      </h2>
      <section className="mt-4">
        <h3 className="mb-1 font-semibold text-slate-900">{t.arguments}</h3>
        {fn.arguments.length === 0 ? (
          <p className="text-sm text-slate-600">{t.none}</p>
        ) : (
          <ul className="text-sm">
            {fn.arguments.map((a) => (
              <li key={a.name} className="font-mono text-slate-800">
                {a.name || '(body)'}: {a.type}
                {a.required ? '' : ` (${t.optional})`}
              </li>
            ))}
          </ul>
        )}
      </section>
      <Code t={t} title={t.callFunction} code={fn.call} />
    </article>
  );
}

/** A titled block of code with a button that copies it. */
function Code({ t, title, code }: { t: Words; title: string; code: string }) {
  const [copied, setCopied] = useState(false);
  const copy = () =>
    navigator.clipboard?.writeText(code).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  return (
    <section className="mt-4" aria-label={title}>
      <div className="mb-1 flex flex-wrap items-center gap-2">
        <h3 className="font-semibold text-slate-900">{title}</h3>
        <button type="button" className={`${secondary} ml-auto py-1`} onClick={() => void copy()}>
          {copied ? t.copied : t.copy}
        </button>
      </div>
      <pre
        tabIndex={0}
        className={`overflow-x-auto rounded-md bg-slate-900 p-3 text-sm text-slate-100 ${focusRing}`}
      >
        <code>{code}</code>
      </pre>
    </section>
  );
}
