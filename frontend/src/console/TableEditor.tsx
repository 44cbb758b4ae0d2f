// The table editor (docs/console.md): a table's rows, paged, sorted and
// filtered by `/rest/v1`'s own planner, inserted, edited and deleted by
// primary key; new tables, column changes, RLS and policies from Studio's
// templates, each shown as the SQL it runs before the operator applies it.
import { type FormEvent, useEffect, useState } from 'react';
import {
  type ColumnDefault,
  ConsoleApiError,
  type NewColumn,
  type PolicyTemplate,
  type Row,
  type SchemaChange,
  type Table,
  byKey,
  tableApi,
} from './api';
import type { Words } from './i18n';
import { focusRing, input, primary, secondary } from './styles';

/** The types the editor offers (the server checks them against the same list). */
const TYPES = ['text', 'int8', 'int4', 'numeric', 'float8', 'boolean', 'uuid', 'timestamptz', 'date', 'jsonb'];
const EXPRESSIONS = ['', 'now()', 'gen_random_uuid()', 'auth.uid()', 'true', 'false'];
const PAGE = 25;

const label = 'flex flex-col gap-1 text-sm text-slate-800';

function message(e: unknown): string {
  return e instanceof ConsoleApiError ? `${e.code}: ${e.message}` : String((e as Error).message);
}

/** The columns of the table's primary key, read from its constraint's definition. */
export function primaryKey(table: Table): string[] {
  const definition = table.constraints.find((c) => c.type === 'primary key')?.definition ?? '';
  const inside = /PRIMARY KEY \((.*)\)/.exec(definition)?.[1];
  return inside ? inside.split(',').map((name) => name.trim().replace(/^"(.*)"$/, '$1').replaceAll('""', '"')) : [];
}

/**
 * `changes` as the SQL they will run, with Apply and Cancel: the text is
 * asked of the server, and Apply sends it back, so what runs is what was shown.
 */
function ChangePreview({ t, changes, onDone }: { t: Words; changes: SchemaChange[]; onDone: (applied: boolean) => void }) {
  const [sql, setSql] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    tableApi.preview(changes).then((answer) => setSql(answer.sql), (e) => setError(message(e)));
  }, [changes]);

  const apply = async () => {
    if (sql === null) return;
    setBusy(true);
    try {
      await tableApi.apply(changes, sql);
      onDone(true);
    } catch (e) {
      setError(message(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <div role="dialog" aria-label={t.sqlToRun} className="mt-3 rounded-md border border-brand-600 bg-white p-3">
      <h3 className="mb-1 font-semibold text-slate-900">{t.sqlToRun}</h3>
      {sql !== null && (
        <pre data-testid="change-sql" className="overflow-x-auto whitespace-pre-wrap rounded bg-slate-900 p-2 font-mono text-sm text-slate-100">
          {sql}
        </pre>
      )}
      {error && (
        <p role="alert" className="mt-2 text-sm text-red-700">
          {error}
        </p>
      )}
      <div className="mt-2 flex gap-2">
        <button type="button" className={primary} disabled={sql === null || busy} onClick={() => void apply()}>
          {t.apply}
        </button>
        <button type="button" className={secondary} onClick={() => onDone(false)}>
          {t.cancel}
        </button>
      </div>
    </div>
  );
}

function ColumnFields({ t, column, onChange }: { t: Words; column: NewColumn; onChange: (column: NewColumn) => void }) {
  const value = column.default && 'value' in column.default ? column.default.value : '';
  const expression = column.default && 'expression' in column.default ? column.default.expression : '';
  const setDefault = (next: ColumnDefault | undefined) => onChange({ ...column, default: next });
  return (
    <div className="flex flex-wrap items-end gap-2">
      <label className={label}>
        {t.name}
        <input className={input} required value={column.name} onChange={(e) => onChange({ ...column, name: e.target.value })} />
      </label>
      <label className={label}>
        {t.type}
        <select className={input} value={column.type} onChange={(e) => onChange({ ...column, type: e.target.value })}>
          {TYPES.map((type) => (
            <option key={type}>{type}</option>
          ))}
        </select>
      </label>
      <label className={label}>
        {t.defaultValue}
        <input
          className={input}
          value={value}
          onChange={(e) => setDefault(e.target.value === '' ? undefined : { value: e.target.value })}
        />
      </label>
      <label className={label}>
        {t.defaultExpression}
        <select
          className={input}
          value={expression}
          onChange={(e) => setDefault(e.target.value === '' ? undefined : { expression: e.target.value })}
        >
          {EXPRESSIONS.map((option) => (
            <option key={option} value={option}>
              {option || '—'}
            </option>
          ))}
        </select>
      </label>
      <label className="flex items-center gap-1 text-sm text-slate-800">
        <input
          type="checkbox"
          className={focusRing}
          checked={column.nullable !== false}
          onChange={(e) => onChange({ ...column, nullable: e.target.checked })}
        />
        {t.nullable}
      </label>
      <label className="flex items-center gap-1 text-sm text-slate-800">
        <input
          type="checkbox"
          className={focusRing}
          checked={column.primaryKey === true}
          onChange={(e) => onChange({ ...column, primaryKey: e.target.checked })}
        />
        {t.primaryKey}
      </label>
    </div>
  );
}

function templateOf(kind: string, column: string): PolicyTemplate {
  return kind === 'owner' ? { template: 'owner', column } : { template: kind as 'publicRead' | 'authenticatedRead' };
}

function PolicyFields({
  t,
  name,
  kind,
  column,
  onChange,
}: {
  t: Words;
  name: string;
  kind: string;
  column: string;
  onChange: (name: string, kind: string, column: string) => void;
}) {
  return (
    <div className="flex flex-wrap items-end gap-2">
      <label className={label}>
        {t.policyName}
        <input className={input} value={name} onChange={(e) => onChange(e.target.value, kind, column)} />
      </label>
      <label className={label}>
        {t.template}
        <select className={input} value={kind} onChange={(e) => onChange(name, e.target.value, column)}>
          <option value="">—</option>
          <option value="publicRead">{t.templatePublicRead}</option>
          <option value="authenticatedRead">{t.templateAuthenticatedRead}</option>
          <option value="owner">{t.templateOwner}</option>
        </select>
      </label>
      {kind === 'owner' && (
        <label className={label}>
          {t.ownerColumn}
          <input className={input} required value={column} onChange={(e) => onChange(name, kind, e.target.value)} />
        </label>
      )}
    </div>
  );
}

/** A new table: its columns, and row-level security with a policy from a template if asked. */
export function NewTable({ t, onCreated }: { t: Words; onCreated: () => void }) {
  const [schema, setSchema] = useState('public');
  const [name, setName] = useState('');
  const [columns, setColumns] = useState<NewColumn[]>([
    { name: 'id', type: 'int8', primaryKey: true, nullable: false },
  ]);
  const [rls, setRls] = useState(true);
  const [policy, setPolicy] = useState({ name: '', kind: '', column: '' });
  const [changes, setChanges] = useState<SchemaChange[] | null>(null);

  const preview = (event: FormEvent) => {
    event.preventDefault();
    const on = { schema, table: name };
    const next: SchemaChange[] = [{ ...on, change: 'createTable', columns }];
    if (rls) next.push({ ...on, change: 'enableRls' });
    if (policy.kind) {
      next.push({ ...on, change: 'createPolicy', name: policy.name || policy.kind, policy: templateOf(policy.kind, policy.column) });
    }
    setChanges(next);
  };

  return (
    <section aria-labelledby="new-table" className="rounded-md border border-slate-200 bg-white p-3">
      <h2 id="new-table" className="mb-2 text-lg font-bold text-slate-900">
        {t.newTable}
      </h2>
      <form className="flex flex-col gap-3" onSubmit={preview}>
        <div className="flex flex-wrap gap-2">
          <label className={label}>
            {t.schema}
            <input className={input} required value={schema} onChange={(e) => setSchema(e.target.value)} />
          </label>
          <label className={label}>
            {t.tableName}
            <input className={input} required value={name} onChange={(e) => setName(e.target.value)} />
          </label>
        </div>
        <fieldset className="flex flex-col gap-2">
          <legend className="text-sm font-semibold text-slate-900">{t.columns}</legend>
          {columns.map((column, i) => (
            <div key={i} className="flex flex-wrap items-end gap-2 border-b border-slate-100 pb-2">
              <ColumnFields
                t={t}
                column={column}
                onChange={(next) => setColumns(columns.map((c, j) => (j === i ? next : c)))}
              />
              {columns.length > 1 && (
                <button
                  type="button"
                  className={secondary}
                  aria-label={t.dropColumn(column.name)}
                  onClick={() => setColumns(columns.filter((_, j) => j !== i))}
                >
                  ✕
                </button>
              )}
            </div>
          ))}
          <div>
            <button type="button" className={secondary} onClick={() => setColumns([...columns, { name: '', type: 'text' }])}>
              {t.addColumn}
            </button>
          </div>
        </fieldset>
        <label className="flex items-center gap-2 text-sm text-slate-800">
          <input type="checkbox" className={focusRing} checked={rls} onChange={(e) => setRls(e.target.checked)} />
          {t.enableRls}
        </label>
        <fieldset>
          <legend className="text-sm font-semibold text-slate-900">{t.newPolicy}</legend>
          <PolicyFields
            t={t}
            {...policy}
            onChange={(policyName, kind, column) => setPolicy({ name: policyName, kind, column })}
          />
        </fieldset>
        <div>
          <button type="submit" className={primary}>
            {t.preview}
          </button>
        </div>
      </form>
      {changes && (
        <ChangePreview
          t={t}
          changes={changes}
          onDone={(applied) => {
            setChanges(null);
            if (applied) onCreated();
          }}
        />
      )}
    </section>
  );
}

/** A table's rows and the changes to its structure, below its details. */
export function TableEditor({ t, table, onChanged }: { t: Words; table: Table; onChanged: () => void }) {
  return (
    <div className="mt-6 flex flex-col gap-6">
      <Rows t={t} table={table} />
      {table.kind === 'table' && <Structure t={t} table={table} onChanged={onChanged} />}
    </div>
  );
}

function display(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function Rows({ t, table }: { t: Words; table: Table }) {
  const key = primaryKey(table);
  const [order, setOrder] = useState(key[0] ?? table.columns[0]?.name ?? '');
  const [descending, setDescending] = useState(false);
  const [filter, setFilter] = useState('');
  const [applied, setApplied] = useState('');
  const [page, setPage] = useState(0);
  const [rows, setRows] = useState<Row[]>([]);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<{ original: Row | null; values: Record<string, string> } | null>(null);
  const [version, setVersion] = useState(0);

  useEffect(() => {
    const query = new URLSearchParams(applied);
    query.set('select', '*');
    if (order) query.set('order', `${order}.${descending ? 'desc' : 'asc'}`);
    query.set('limit', String(PAGE));
    query.set('offset', String(page * PAGE));
    tableApi.rows(table.schema, table.name, query).then(
      (answer) => {
        setRows(answer.rows);
        setTotal(answer.total);
        setError(null);
      },
      (e) => setError(message(e)),
    );
  }, [table.schema, table.name, order, descending, applied, page, version]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!editing) return;
    // An empty field is left out, so that the column's default (or NULL) applies.
    const values = Object.fromEntries(Object.entries(editing.values).filter(([, value]) => value !== ''));
    try {
      if (editing.original) await tableApi.update(table.schema, table.name, byKey(key, editing.original), values);
      else await tableApi.insert(table.schema, table.name, values);
      setEditing(null);
      setVersion(version + 1);
    } catch (e) {
      setError(message(e));
    }
  };

  const remove = async (row: Row) => {
    if (!window.confirm(t.confirmDeleteRow)) return;
    try {
      await tableApi.remove(table.schema, table.name, byKey(key, row));
      setVersion(version + 1);
    } catch (e) {
      setError(message(e));
    }
  };

  const pages = Math.max(1, Math.ceil(total / PAGE));
  return (
    <section aria-labelledby="rows-title">
      <h3 id="rows-title" className="mb-2 text-lg font-semibold text-slate-900">
        {t.browse} · {t.rows(total)}
      </h3>
      <form
        className="mb-2 flex flex-wrap items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          setPage(0);
          setApplied(filter);
        }}
      >
        <label className={`${label} grow`}>
          {t.filter}
          <input className={input} value={filter} onChange={(e) => setFilter(e.target.value)} />
        </label>
        <label className={label}>
          {t.sortBy}
          <select className={input} value={order} onChange={(e) => setOrder(e.target.value)}>
            {table.columns.map((column) => (
              <option key={column.name}>{column.name}</option>
            ))}
          </select>
        </label>
        <label className={label}>
          <span className="sr-only">{t.sortBy}</span>
          <select className={input} value={descending ? 'desc' : 'asc'} onChange={(e) => setDescending(e.target.value === 'desc')}>
            <option value="asc">{t.ascending}</option>
            <option value="desc">{t.descending}</option>
          </select>
        </label>
        <button type="submit" className={secondary}>
          {t.search}
        </button>
        {table.kind === 'table' && (
          <button type="button" className={primary} onClick={() => setEditing({ original: null, values: {} })}>
            {t.insertRow}
          </button>
        )}
      </form>
      {key.length === 0 && table.kind === 'table' && <p className="text-sm text-slate-600">{t.noKey}</p>}
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      {editing && (
        <form
          aria-label={editing.original ? t.editRow : t.insertRow}
          className="mb-3 flex flex-col gap-2 rounded-md border border-slate-200 bg-white p-3"
          onSubmit={save}
        >
          <p className="text-sm text-slate-600">{t.emptyMeansDefault}</p>
          <div className="grid grid-cols-1 gap-2 md:grid-cols-2">
            {table.columns.map((column) => (
              <label key={column.name} className={label}>
                <span>
                  <span className="font-mono">{column.name}</span> <span className="text-slate-600">{column.type}</span>
                </span>
                <input
                  className={input}
                  value={editing.values[column.name] ?? ''}
                  onChange={(e) => setEditing({ ...editing, values: { ...editing.values, [column.name]: e.target.value } })}
                />
              </label>
            ))}
          </div>
          <div className="flex gap-2">
            <button type="submit" className={primary}>
              {t.save}
            </button>
            <button type="button" className={secondary} onClick={() => setEditing(null)}>
              {t.cancel}
            </button>
          </div>
        </form>
      )}
      <div className="max-h-[60vh] overflow-auto">
        <table className="min-w-full border border-slate-200 bg-white text-sm">
          <thead className="sticky top-0 bg-slate-100 text-left">
            <tr>
              {table.columns.map((column) => (
                <th key={column.name} className="px-2 py-1 font-mono">
                  {column.name}
                </th>
              ))}
              {key.length > 0 && <th className="px-2 py-1" aria-label={t.editRow} />}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, i) => (
              <tr key={i} className="border-t border-slate-200">
                {table.columns.map((column) => (
                  <td key={column.name} className="whitespace-pre px-2 py-1 font-mono">
                    {row[column.name] === null ? <span className="text-slate-500">NULL</span> : display(row[column.name])}
                  </td>
                ))}
                {key.length > 0 && (
                  <td className="whitespace-nowrap px-2 py-1">
                    <button
                      type="button"
                      className={`rounded px-2 text-brand-800 underline ${focusRing}`}
                      onClick={() =>
                        setEditing({
                          original: row,
                          values: Object.fromEntries(table.columns.map((c) => [c.name, display(row[c.name])])),
                        })
                      }
                    >
                      {t.editRow}
                    </button>
                    <button type="button" className={`rounded px-2 text-red-800 ${focusRing}`} onClick={() => void remove(row)}>
                      {t.deleteRow}
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="mt-2 flex items-center gap-2 text-sm">
        <button type="button" className={secondary} disabled={page === 0} onClick={() => setPage(page - 1)}>
          {t.previous}
        </button>
        <span>{t.pageOf(page + 1, pages)}</span>
        <button type="button" className={secondary} disabled={page + 1 >= pages} onClick={() => setPage(page + 1)}>
          {t.next}
        </button>
      </div>
    </section>
  );
}

/** Adding, renaming, changing and dropping columns; RLS and a policy from a template. */
function Structure({ t, table, onChanged }: { t: Words; table: Table; onChanged: () => void }) {
  const on = { schema: table.schema, table: table.name };
  const [changes, setChanges] = useState<SchemaChange[] | null>(null);
  const [column, setColumn] = useState<NewColumn>({ name: '', type: 'text' });
  const [target, setTarget] = useState(table.columns[0]?.name ?? '');
  const [rename, setRename] = useState('');
  const [type, setType] = useState('');
  const [nullable, setNullable] = useState('');
  const [policy, setPolicy] = useState({ name: '', kind: 'publicRead', column: '' });

  const done = (applied: boolean) => {
    setChanges(null);
    if (applied) onChanged();
  };
  const alter = (): SchemaChange[] => {
    const next: SchemaChange[] = [];
    if (type || nullable) {
      next.push({
        ...on,
        change: 'alterColumn',
        column: target,
        ...(type ? { type } : {}),
        ...(nullable ? { nullable: nullable === 'yes' } : {}),
      });
    }
    if (rename) next.push({ ...on, change: 'renameColumn', column: target, to: rename });
    return next;
  };

  return (
    <section aria-labelledby="structure-title" className="flex flex-col gap-4">
      <h3 id="structure-title" className="text-lg font-semibold text-slate-900">
        {t.structure}
      </h3>
      <form
        aria-label={t.addColumn}
        className="flex flex-wrap items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          setChanges([{ ...on, change: 'addColumn', column }]);
        }}
      >
        <ColumnFields t={t} column={column} onChange={setColumn} />
        <button type="submit" className={secondary}>
          {t.addColumn}
        </button>
      </form>
      <form
        aria-label={t.changeColumn}
        className="flex flex-wrap items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          const next = alter();
          if (next.length > 0) setChanges(next);
        }}
      >
        <label className={label}>
          {t.column}
          <select className={input} value={target} onChange={(e) => setTarget(e.target.value)}>
            {table.columns.map((c) => (
              <option key={c.name}>{c.name}</option>
            ))}
          </select>
        </label>
        <label className={label}>
          {t.newName}
          <input className={input} value={rename} onChange={(e) => setRename(e.target.value)} />
        </label>
        <label className={label}>
          {t.type}
          <select className={input} value={type} onChange={(e) => setType(e.target.value)}>
            <option value="">—</option>
            {TYPES.map((option) => (
              <option key={option}>{option}</option>
            ))}
          </select>
        </label>
        <label className={label}>
          {t.nullable}
          <select className={input} value={nullable} onChange={(e) => setNullable(e.target.value)}>
            <option value="">—</option>
            <option value="yes">{t.yes}</option>
            <option value="no">{t.no}</option>
          </select>
        </label>
        <button type="submit" className={secondary}>
          {t.changeColumn}
        </button>
        <button
          type="button"
          className={`${secondary} text-red-800`}
          onClick={() => setChanges([{ ...on, change: 'dropColumn', column: target }])}
        >
          {t.dropColumn(target)}
        </button>
      </form>
      <div className="flex flex-wrap items-end gap-2">
        {!table.rlsEnabled && (
          <button type="button" className={secondary} onClick={() => setChanges([{ ...on, change: 'enableRls' }])}>
            {t.enableRls}
          </button>
        )}
        <form
          aria-label={t.newPolicy}
          className="flex flex-wrap items-end gap-2"
          onSubmit={(event) => {
            event.preventDefault();
            if (!policy.kind) return;
            setChanges([
              { ...on, change: 'createPolicy', name: policy.name || policy.kind, policy: templateOf(policy.kind, policy.column) },
            ]);
          }}
        >
          <PolicyFields t={t} {...policy} onChange={(name, kind, col) => setPolicy({ name, kind, column: col })} />
          <button type="submit" className={secondary}>
            {t.newPolicy}
          </button>
        </form>
      </div>
      {changes && <ChangePreview t={t} changes={changes} onDone={done} />}
    </section>
  );
}
