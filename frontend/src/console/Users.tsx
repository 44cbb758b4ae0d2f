// The console's users (Studio's Authentication page): search and page
// through them, make or invite one, and for the one chosen its identities,
// sessions (each revocable) and factors, a ban, a recovery link or deletion.
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { type AuthUser, type UserPage, type UserSession, api } from './api';
import type { Words } from './i18n';
import { focusRing, input, primary, secondary } from './styles';

const date = (text: string | null) => (text ? new Date(text).toLocaleString() : '—');

function status(t: Words, user: AuthUser) {
  if (user.banned_until && new Date(user.banned_until) > new Date()) return t.banned;
  return user.email_confirmed_at ? t.active : t.unconfirmed;
}

export function Users({ t }: { t: Words }) {
  const [search, setSearch] = useState('');
  const [query, setQuery] = useState('');
  const [page, setPage] = useState(1);
  const [result, setResult] = useState<UserPage | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(() => {
    api.users(query, page).then(
      (answer) => {
        setResult(answer);
        setError(null);
      },
      (e: Error) => setError(e.message),
    );
  }, [query, page]);
  useEffect(load, [load]);

  const submitSearch = (event: FormEvent) => {
    event.preventDefault();
    setPage(1);
    setQuery(search.trim());
  };
  const pages = result ? Math.max(1, Math.ceil(result.total / result.perPage)) : 1;

  return (
    <div className="flex flex-col gap-4 lg:flex-row">
      <section className="min-w-0 flex-1" aria-labelledby="users-title">
        <h2 id="users-title" className="mb-2 text-xl font-bold text-slate-900">
          {t.users}
        </h2>
        <form role="search" className="mb-3 flex flex-wrap gap-2" onSubmit={submitSearch}>
          <label className="sr-only" htmlFor="user-search">
            {t.searchUsers}
          </label>
          <input
            id="user-search"
            type="search"
            className={`${input} min-w-0 flex-1`}
            placeholder={t.searchUsers}
            value={search}
            onChange={(event) => setSearch(event.target.value)}
          />
          <button type="submit" className={secondary}>
            {t.search}
          </button>
        </form>
        <NewUser t={t} onMade={load} />
        {error && (
          <p role="alert" className="text-red-700">
            {error}
          </p>
        )}
        {!result ? (
          <p className="text-slate-600">{t.loading}</p>
        ) : result.users.length === 0 ? (
          <p className="text-slate-600">{t.noUsers}</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="min-w-full border border-slate-200 bg-white text-sm">
              <thead className="bg-slate-100 text-left">
                <tr>
                  <th className="px-2 py-1">{t.email}</th>
                  <th className="px-2 py-1">{t.created}</th>
                  <th className="px-2 py-1">{t.lastSignIn}</th>
                  <th className="px-2 py-1">{t.status}</th>
                </tr>
              </thead>
              <tbody>
                {result.users.map((user) => (
                  <tr key={user.id} className="border-t border-slate-200">
                    <td className="px-2 py-1">
                      <button
                        type="button"
                        aria-current={chosen === user.id ? 'true' : undefined}
                        className={`rounded text-left text-brand-800 underline ${focusRing}`}
                        onClick={() => setChosen(user.id)}
                      >
                        {user.email ?? user.phone ?? user.id}
                      </button>
                    </td>
                    <td className="px-2 py-1">{date(user.created_at)}</td>
                    <td className="px-2 py-1">{date(user.last_sign_in_at)}</td>
                    <td className="px-2 py-1">{status(t, user)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <nav aria-label={t.pageOf(page, pages)} className="mt-2 flex items-center gap-2 text-sm">
          <button type="button" className={secondary} disabled={page <= 1} onClick={() => setPage(page - 1)}>
            {t.previous}
          </button>
          <span className="text-slate-700">{t.pageOf(page, pages)}</span>
          <button type="button" className={secondary} disabled={page >= pages} onClick={() => setPage(page + 1)}>
            {t.next}
          </button>
        </nav>
      </section>
      <section className="lg:w-[28rem] lg:shrink-0" aria-live="polite">
        {chosen ? (
          <UserDetails
            key={chosen}
            t={t}
            id={chosen}
            onChanged={load}
            onDeleted={() => {
              setChosen(null);
              load();
            }}
          />
        ) : (
          <p className="text-slate-600">{t.chooseUser}</p>
        )}
      </section>
    </div>
  );
}

function NewUser({ t, onMade }: { t: Words; onMade: () => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [message, setMessage] = useState<string | null>(null);
  const act = async (action: () => Promise<unknown>, done: string) => {
    try {
      await action();
      setMessage(done);
      setEmail('');
      setPassword('');
      onMade();
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  const create = (event: FormEvent) => {
    event.preventDefault();
    act(() => api.createUser(email, password), t.userCreated);
  };
  return (
    <details className="mb-3 rounded-md border border-slate-200 bg-white p-2">
      <summary className={`cursor-pointer text-sm font-semibold text-slate-900 ${focusRing}`}>{t.newUser}</summary>
      <form className="mt-2 flex flex-wrap items-end gap-2" onSubmit={create}>
        <label className="flex flex-col text-sm text-slate-800">
          {t.email}
          <input
            type="email"
            required
            className={input}
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        </label>
        <label className="flex flex-col text-sm text-slate-800">
          {t.password}
          <input
            type="password"
            autoComplete="new-password"
            className={input}
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        </label>
        <button type="submit" className={primary}>
          {t.create}
        </button>
        <button
          type="button"
          className={secondary}
          disabled={!email}
          onClick={() => act(() => api.inviteUser(email), t.invited)}
        >
          {t.invite}
        </button>
      </form>
      {message && (
        <p role="status" className="mt-2 text-sm text-slate-700">
          {message}
        </p>
      )}
    </details>
  );
}

function UserDetails({
  t,
  id,
  onChanged,
  onDeleted,
}: {
  t: Words;
  id: string;
  onChanged: () => void;
  onDeleted: () => void;
}) {
  const [detail, setDetail] = useState<{ user: AuthUser; sessions: UserSession[] } | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const load = useCallback(() => {
    api.user(id).then(setDetail, (e: Error) => setMessage(e.message));
  }, [id]);
  useEffect(load, [load]);

  if (!detail) return message ? <p role="alert">{message}</p> : <p className="text-slate-600">{t.loading}</p>;
  const { user, sessions } = detail;
  const banned = user.banned_until !== null && new Date(user.banned_until) > new Date();
  const act = async (action: () => Promise<unknown>, done?: string) => {
    try {
      await action();
      setMessage(done ?? null);
      load();
      onChanged();
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  const label = user.email ?? user.phone ?? user.id;
  return (
    <article className="rounded-md border border-slate-200 bg-white p-3">
      <h3 className="text-lg font-bold text-slate-900">{label}</h3>
      <p className="font-mono text-xs text-slate-600">{user.id}</p>
      <p className="text-sm text-slate-700">{status(t, user)}</p>
      <div className="mt-2 flex flex-wrap gap-2">
        <button
          type="button"
          className={secondary}
          onClick={() => act(() => api.banUser(user.id, banned ? 'none' : '24h'))}
        >
          {banned ? t.unban : t.ban}
        </button>
        {user.email && (
          <button type="button" className={secondary} onClick={() => act(() => api.sendRecovery(user.id), t.recoverySent)}>
            {t.sendRecovery}
          </button>
        )}
        <button
          type="button"
          className={`${secondary} text-red-800`}
          onClick={async () => {
            if (!window.confirm(t.confirmDelete(label))) return;
            try {
              await api.deleteUser(user.id);
              onDeleted();
            } catch (e) {
              setMessage((e as Error).message);
            }
          }}
        >
          {t.deleteUser}
        </button>
      </div>
      {message && (
        <p role="status" className="mt-2 text-sm text-slate-700">
          {message}
        </p>
      )}
      <h4 className="mt-3 font-semibold text-slate-900">{t.identities}</h4>
      <ul className="text-sm text-slate-800">
        {(user.identities ?? []).map((identity) => (
          <li key={identity.id}>
            {identity.provider} · {date(identity.created_at)}
          </li>
        ))}
      </ul>
      <h4 className="mt-3 font-semibold text-slate-900">{t.sessions}</h4>
      {sessions.length === 0 ? (
        <p className="text-sm text-slate-600">{t.noSessions}</p>
      ) : (
        <ul className="flex flex-col gap-1 text-sm">
          {sessions.map((session) => (
            <li key={session.id} className="flex flex-wrap items-center gap-2">
              <span className="text-slate-800">
                {date(session.created_at)} · {session.aal ?? ''} · {session.user_agent ?? ''} {session.ip ?? ''}
              </span>
              <button
                type="button"
                className={secondary}
                aria-label={`${t.revoke} ${date(session.created_at)}`}
                onClick={() => act(() => api.revokeSession(user.id, session.id))}
              >
                {t.revoke}
              </button>
            </li>
          ))}
        </ul>
      )}
      <h4 className="mt-3 font-semibold text-slate-900">{t.factors}</h4>
      <ul className="text-sm text-slate-800">
        {(user.factors ?? []).length === 0 ? (
          <li className="text-slate-600">{t.none}</li>
        ) : (
          (user.factors ?? []).map((factor) => (
            <li key={factor.id}>
              {factor.factor_type} · {factor.status} {factor.friendly_name ?? ''}
            </li>
          ))
        )}
      </ul>
    </article>
  );
}
