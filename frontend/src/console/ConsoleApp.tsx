// The operator console (docs/console.md): sign in, the tables of the exposed
// schemas with their columns and policies, and a SQL editor whose results
// download as CSV. A bundle of its own (console.html), so the shop's pages
// never load it.
import { type FormEvent, type KeyboardEvent, useEffect, useState } from 'react';
import { ConsoleApiError, type Snippet, type SqlResult, type Table, api, toCsv } from './api';
import { type Language, type Words, saveLanguage, savedLanguage, words } from './i18n';

type View = 'tables' | 'sql' | 'users' | 'keys' | 'observe' | 'storage' | DocsView;
// API docs and live settings (ApiDocs.tsx, Settings.tsx).
type DocsView = 'apiDocs' | 'settings';

import { button, focusRing, primary, secondary } from './styles';
import { Users } from './Users';
import { ApiDocs } from './ApiDocs';
import { Settings } from './Settings';
import { NewTable, TableEditor } from './TableEditor';
import { ExplainTree } from './ExplainTree';
import { parsePlan } from './api';
import { Keys } from './Keys';
import { Observe } from './Observe';
import { Storage } from './Storage';

export function ConsoleApp() {
  const [language, setLanguage] = useState<Language>(savedLanguage);
  const [email, setEmail] = useState<string | null>(null);
  const [checked, setChecked] = useState(false);
  const [view, setView] = useState<View>('tables');
  const t = words[language];

  useEffect(() => {
    document.documentElement.lang = language;
    document.title = t.title;
  }, [language, t.title]);

  useEffect(() => {
    api.session().then(
      (session) => setEmail(session.email),
      () => setEmail(null),
    ).finally(() => setChecked(true));
  }, []);

  const chooseLanguage = (next: Language) => {
    saveLanguage(next);
    setLanguage(next);
  };

  const languagePicker = (
    <label className="flex items-center gap-2 text-sm text-slate-700">
      {t.language}
      <select
        className={`rounded-md border border-slate-300 bg-white px-2 py-1 ${focusRing}`}
        value={language}
        onChange={(event) => chooseLanguage(event.target.value as Language)}
      >
        <option value="es">Español</option>
        <option value="en">English</option>
      </select>
    </label>
  );

  if (!checked) return <p className="p-6 text-slate-600">{t.loading}</p>;
  if (email === null) {
    return <SignIn t={t} languagePicker={languagePicker} onSignedIn={setEmail} />;
  }
  const tab = (name: View, label: string) => (
    <button
      type="button"
      aria-current={view === name ? 'page' : undefined}
      className={`${button} ${view === name ? 'bg-brand-100 text-brand-900' : 'text-slate-700 hover:bg-slate-100'}`}
      onClick={() => setView(name)}
    >
      {label}
    </button>
  );
  return (
    <div className="min-h-screen">
      <header className="flex flex-wrap items-center gap-3 border-b border-slate-200 bg-white px-4 py-3">
        <span className="text-lg font-bold text-slate-900">{t.title}</span>
        <nav aria-label={t.title} className="flex flex-wrap gap-1">
          {tab('tables', t.tables)}
          {tab('sql', t.sql)}
          {tab('users', t.users)}
          {tab('storage', t.storage)}
          {tab('keys', t.keys)}
          {tab('observe', t.observe)}
          {tab('apiDocs', t.apiDocs)}
          {tab('settings', t.settings)}
        </nav>
        <div className="ml-auto flex flex-wrap items-center gap-3">
          {languagePicker}
          <span className="text-sm text-slate-600">{email}</span>
          <button
            type="button"
            className={secondary}
            onClick={() => api.signOut().finally(() => setEmail(null))}
          >
            {t.signOut}
          </button>
        </div>
      </header>
      <main className="p-4">
        {view === 'tables' ? <Tables t={t} /> : view === 'sql' ? <SqlEditor t={t} /> : view === 'users' ? <Users t={t} /> : null}
        {view === 'keys' && <Keys t={t} />}
        {view === 'observe' && <Observe t={t} />}
        {view === 'storage' && <Storage t={t} />}
        {view === 'apiDocs' ? <ApiDocs t={t} /> : view === 'settings' ? <Settings t={t} /> : null}
      </main>
    </div>
  );
}

function SignIn({ t, languagePicker, onSignedIn }: { t: Words; languagePicker: React.ReactNode; onSignedIn: (email: string) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const session = await api.signIn(email, password);
      onSignedIn(session.email);
    } catch (e) {
      const status = e instanceof ConsoleApiError ? e.status : 0;
      setError(status === 429 ? t.tooMany : status === 401 ? t.wrongCredentials : String((e as Error).message));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main className="mx-auto mt-16 max-w-sm rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      <h1 className="mb-4 text-xl font-bold text-slate-900">{t.signInTitle}</h1>
      <form className="flex flex-col gap-3" onSubmit={submit}>
        <label className="flex flex-col gap-1 text-sm text-slate-800">
          {t.email}
          <input
            className={`rounded-md border border-slate-300 px-3 py-2 ${focusRing}`}
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </label>
        <label className="flex flex-col gap-1 text-sm text-slate-800">
          {t.password}
          <input
            className={`rounded-md border border-slate-300 px-3 py-2 ${focusRing}`}
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </label>
        {error && (
          <p role="alert" className="text-sm text-red-700">
            {error}
          </p>
        )}
        <button type="submit" className={primary} disabled={busy}>
          {busy ? t.signingIn : t.signIn}
        </button>
      </form>
      <div className="mt-4">{languagePicker}</div>
    </main>
  );
}

function Tables({ t }: { t: Words }) {
  const [tables, setTables] = useState<Table[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const [creating, setCreating] = useState(false);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    api.tables().then(setTables, (e: Error) => setError(e.message));
  }, [version]);

  if (error) return <p role="alert" className="text-red-700">{error}</p>;
  if (!tables) return <p className="text-slate-600">{t.loading}</p>;
  const key = (table: Table) => `${table.schema}.${table.name}`;
  const table = tables.find((candidate) => key(candidate) === chosen);
  return (
    <div className="flex flex-col gap-4 md:flex-row">
      <nav aria-label={t.tables} className="md:w-64 md:shrink-0">
        <h2 className="mb-2 text-sm font-semibold uppercase text-slate-600">{t.tables}</h2>
        <button type="button" className={`${secondary} mb-2 w-full`} onClick={() => setCreating(true)}>
          {t.newTable}
        </button>
        {tables.length === 0 && <p className="text-sm text-slate-600">{t.noTables}</p>}
        <ul className="flex max-h-[70vh] flex-col gap-1 overflow-y-auto">
          {tables.map((candidate) => (
            <li key={key(candidate)}>
              <button
                type="button"
                aria-current={key(candidate) === chosen ? 'true' : undefined}
                className={`w-full rounded-md px-2 py-1 text-left text-sm ${focusRing} ${
                  key(candidate) === chosen ? 'bg-brand-100 text-brand-900' : 'text-slate-800 hover:bg-slate-100'
                }`}
                onClick={() => {
                  setChosen(key(candidate));
                  setCreating(false);
                }}
              >
                <span className="text-slate-600">{candidate.schema}.</span>
                {candidate.name}
                {candidate.kind !== 'table' && <span className="ml-1 text-xs text-slate-600">({t.view})</span>}
              </button>
            </li>
          ))}
        </ul>
      </nav>
      <section className="min-w-0 flex-1" aria-live="polite">
        {creating ? (
          <NewTable
            t={t}
            onCreated={() => {
              setCreating(false);
              setVersion(version + 1);
            }}
          />
        ) : table ? (
          <>
            <TableDetails t={t} table={table} />
            <TableEditor key={key(table)} t={t} table={table} onChanged={() => setVersion(version + 1)} />
          </>
        ) : (
          <p className="text-slate-600">{t.chooseTable}</p>
        )}
      </section>
    </div>
  );
}

function TableDetails({ t, table }: { t: Words; table: Table }) {
  const definitions = (title: string, items: { name: string; definition: string }[]) => (
    <section className="mt-4">
      <h3 className="mb-1 font-semibold text-slate-900">{title}</h3>
      {items.length === 0 ? (
        <p className="text-sm text-slate-600">{t.none}</p>
      ) : (
        <ul className="text-sm">
          {items.map((item) => (
            <li key={item.name} className="font-mono text-slate-800">
              <span className="font-semibold">{item.name}</span>: {item.definition}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
  return (
    <article>
      <h2 className="text-xl font-bold text-slate-900">
        {table.schema}.{table.name}
      </h2>
      <p className="text-sm text-slate-600">
        {table.kind === 'table' ? t.table : t.view} · {table.rlsEnabled ? t.rlsOn : t.rlsOff}
      </p>
      <section className="mt-4">
        <h3 className="mb-1 font-semibold text-slate-900">{t.columns}</h3>
        <div className="overflow-x-auto">
          <table className="min-w-full border border-slate-200 bg-white text-sm">
            <thead className="bg-slate-100 text-left">
              <tr>
                <th className="px-2 py-1">{t.name}</th>
                <th className="px-2 py-1">{t.type}</th>
                <th className="px-2 py-1">{t.nullable}</th>
                <th className="px-2 py-1">{t.default}</th>
              </tr>
            </thead>
            <tbody>
              {table.columns.map((column) => (
                <tr key={column.name} className="border-t border-slate-200">
                  <td className="px-2 py-1 font-mono">{column.name}</td>
                  <td className="px-2 py-1 font-mono">{column.type}</td>
                  <td className="px-2 py-1">{column.nullable ? t.yes : t.no}</td>
                  <td className="px-2 py-1 font-mono">
                    {column.default ?? (column.identity ? 'identity' : '')}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
      <section className="mt-4">
        <h3 className="mb-1 font-semibold text-slate-900">{t.policies}</h3>
        {table.policies.length === 0 ? (
          <p className="text-sm text-slate-600">{t.noPolicies}</p>
        ) : (
          <ul className="flex flex-col gap-2 text-sm">
            {table.policies.map((policy) => (
              <li key={policy.name} className="rounded-md border border-slate-200 bg-white p-2">
                <p className="font-semibold text-slate-900">{policy.name}</p>
                <p className="text-slate-700">
                  {t.command}: {policy.command} · {t.roles}: {policy.roles.join(', ')}
                </p>
                {policy.using && <p className="font-mono text-slate-800">{t.using} ({policy.using})</p>}
                {policy.check && <p className="font-mono text-slate-800">{t.check} ({policy.check})</p>}
              </li>
            ))}
          </ul>
        )}
      </section>
      {definitions(t.constraints, table.constraints)}
      {definitions(t.foreignKeys, table.foreignKeys)}
      {definitions(t.indexes, table.indexes)}
    </article>
  );
}

function SqlEditor({ t }: { t: Words }) {
  const [sql, setSql] = useState('select now();');
  const [result, setResult] = useState<SqlResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [explained, setExplained] = useState(false);

  const run = async (explain = false) => {
    setBusy(true);
    setError(null);
    setExplained(explain);
    try {
      setResult(await api.sql(explain ? `explain (analyze, format json) ${sql}` : sql));
    } catch (e) {
      setResult(null);
      const code = e instanceof ConsoleApiError ? `${e.code}: ` : '';
      setError(`${code}${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
      event.preventDefault();
      void run();
    }
  };

  const download = () => {
    if (!result) return;
    const url = URL.createObjectURL(new Blob([toCsv(result)], { type: 'text/csv;charset=utf-8' }));
    const link = document.createElement('a');
    link.href = url;
    link.download = 'result.csv';
    link.click();
    URL.revokeObjectURL(url);
  };

  return (
    <div className="flex flex-col gap-3">
      <label className="flex flex-col gap-1 text-sm font-semibold text-slate-900">
        {t.query}
        <textarea
          aria-label={t.query}
          className={`h-40 rounded-md border border-slate-300 bg-white p-2 font-mono text-sm font-normal ${focusRing}`}
          spellCheck={false}
          value={sql}
          onChange={(event) => setSql(event.target.value)}
          onKeyDown={onKeyDown}
        />
      </label>
      <div className="flex flex-wrap items-center gap-3">
        <button type="button" className={primary} disabled={busy} onClick={() => void run()}>
          {busy ? t.running : t.run}
        </button>
        <button type="button" className={secondary} disabled={busy} onClick={() => void run(true)}>
          {t.explain}
        </button>
        <span className="text-sm text-slate-600">{t.runHint}</span>
        {result && result.columns.length > 0 && (
          <button type="button" className={secondary} onClick={download}>
            {t.downloadCsv}
          </button>
        )}
      </div>
      {error && (
        <p role="alert" className="rounded-md border border-red-200 bg-red-50 p-2 font-mono text-sm text-red-800">
          {t.error}: {error}
        </p>
      )}
      {result && explained ? <Plan t={t} result={result} /> : result && <Results t={t} result={result} />}
      <Snippets t={t} sql={sql} onOpen={setSql} />
    </div>
  );
}

/** The saved queries, shared by the operators: save the editor's text, open one into it, delete one. */
function Snippets({ t, sql, onOpen }: { t: Words; sql: string; onOpen: (sql: string) => void }) {
  const [snippets, setSnippets] = useState<Snippet[]>([]);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const reload = () => api.snippets().then(setSnippets, (e: Error) => setError(e.message));

  useEffect(() => {
    void reload();
  }, []);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await api.saveSnippet(name, sql);
      setName('');
      await reload();
    } catch (e) {
      setError((e as Error).message);
    }
  };

  return (
    <section className="mt-4 border-t border-slate-200 pt-4">
      <h2 className="mb-2 font-semibold text-slate-900">{t.snippets}</h2>
      <form className="mb-2 flex flex-wrap items-end gap-2" onSubmit={save}>
        <label className="flex flex-col gap-1 text-sm text-slate-800">
          {t.snippetName}
          <input
            className={`rounded-md border border-slate-300 bg-white px-3 py-2 ${focusRing}`}
            required
            value={name}
            onChange={(event) => setName(event.target.value)}
          />
        </label>
        <button type="submit" className={secondary}>
          {t.save}
        </button>
      </form>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      {snippets.length === 0 ? (
        <p className="text-sm text-slate-600">{t.noSnippets}</p>
      ) : (
        <ul className="flex flex-col gap-1">
          {snippets.map((snippet) => (
            <li key={snippet.id} className="flex items-center gap-2 text-sm">
              <button
                type="button"
                aria-label={t.open(snippet.name)}
                className={`rounded-md px-2 py-1 text-left text-brand-800 underline hover:bg-slate-100 ${focusRing}`}
                onClick={() => onOpen(snippet.sql)}
              >
                {snippet.name}
              </button>
              <span className="text-slate-600">{snippet.createdBy}</span>
              <button
                type="button"
                aria-label={t.remove(snippet.name)}
                className={`ml-auto rounded-md px-2 py-1 text-red-800 hover:bg-red-50 ${focusRing}`}
                onClick={() => void api.deleteSnippet(snippet.id).then(reload)}
              >
                ✕
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function Plan({ t, result }: { t: Words; result: SqlResult }) {
  const plan = parsePlan(result);
  return plan ? <ExplainTree t={t} {...plan} /> : <p className="text-sm text-slate-700">{t.notAPlan}</p>;
}

function Results({ t, result }: { t: Words; result: SqlResult }) {
  if (result.columns.length === 0) {
    return <p className="text-sm text-slate-700">{t.noRows} ({t.rows(result.rowCount)})</p>;
  }
  return (
    <section aria-label={t.rows(result.rowCount)}>
      <p className="mb-1 text-sm text-slate-700">
        {t.rows(result.rowCount)}
        {result.truncated && ` · ${t.truncated(result.rows.length)}`}
      </p>
      <div className="max-h-[60vh] overflow-auto">
        <table className="min-w-full border border-slate-200 bg-white text-sm">
          <thead className="sticky top-0 bg-slate-100 text-left">
            <tr>
              {result.columns.map((column, i) => (
                <th key={i} className="px-2 py-1 font-mono">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {result.rows.map((row, i) => (
              <tr key={i} className="border-t border-slate-200">
                {row.map((value, j) => (
                  <td key={j} className="whitespace-pre px-2 py-1 font-mono">
                    {value === null ? <span className="text-slate-500">NULL</span> : value}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
