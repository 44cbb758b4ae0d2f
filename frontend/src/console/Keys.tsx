// The console's keys (Studio's API Keys and JWT Keys pages): the
// publishable and secret API keys, made and revoked, a new one shown once;
// and the JWT signing keys, made as a standby, rotated to, and revoked.
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { type ApiKey, type SigningKey, keysApi } from './api';
import type { Words } from './i18n';
import { input, primary, secondary } from './styles';

const date = (text: string | null) => (text ? new Date(text).toLocaleString() : '—');
const cell = 'px-2 py-1';

export function Keys({ t }: { t: Words }) {
  const [apiKeys, setApiKeys] = useState<ApiKey[] | null>(null);
  const [signingKeys, setSigningKeys] = useState<SigningKey[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const [shown, setShown] = useState<{ name: string; key: string } | null>(null);

  const load = useCallback(() => {
    keysApi.list().then(
      (answer) => {
        setApiKeys(answer.apiKeys);
        setSigningKeys(answer.signingKeys);
      },
      (e: Error) => setMessage(e.message),
    );
  }, []);
  useEffect(load, [load]);

  const act = async (action: () => Promise<unknown>, done: string) => {
    try {
      await action();
      setMessage(done);
    } catch (e) {
      setMessage((e as Error).message);
    }
    load();
  };

  return (
    <div className="flex flex-col gap-6">
      {message && (
        <p role="status" className="rounded-md border border-slate-200 bg-white p-2 text-sm text-slate-800">
          {message}
        </p>
      )}
      <section aria-labelledby="api-keys-title">
        <h2 id="api-keys-title" className="mb-2 text-xl font-bold text-slate-900">
          {t.apiKeys}
        </h2>
        <NewKey
          t={t}
          onMade={(name, key) => {
            setShown({ name, key });
            setMessage(null);
            load();
          }}
          onError={setMessage}
        />
        {shown && (
          <div role="alert" className="mb-3 rounded-md border border-amber-400 bg-amber-50 p-3 text-sm text-slate-900">
            <p className="font-semibold">{t.keyShownOnce(shown.name)}</p>
            <code data-testid="new-key" className="mt-1 block break-all font-mono">
              {shown.key}
            </code>
            <button type="button" className={`${secondary} mt-2`} onClick={() => setShown(null)}>
              {t.keySaved}
            </button>
          </div>
        )}
        {!apiKeys ? (
          <p className="text-slate-600">{t.loading}</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="min-w-full border border-slate-200 bg-white text-sm">
              <thead className="bg-slate-100 text-left">
                <tr>
                  <th className={cell}>{t.name}</th>
                  <th className={cell}>{t.kind}</th>
                  <th className={cell}>{t.key}</th>
                  <th className={cell}>{t.created}</th>
                  <th className={cell}>{t.status}</th>
                  <th className={cell}>
                    <span className="sr-only">{t.revoke}</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {apiKeys.map((key) => (
                  <tr key={`${key.kind}-${key.name}-${key.createdAt}`} className="border-t border-slate-200">
                    <td className={cell}>{key.name}</td>
                    <td className={cell}>{key.kind === 'secret' ? t.secret : t.publishable}</td>
                    <td className={`${cell} font-mono`}>{key.start}…</td>
                    <td className={cell}>{date(key.createdAt)}</td>
                    <td className={cell}>{key.revokedAt ? `${t.revoked} ${date(key.revokedAt)}` : t.inUse}</td>
                    <td className={cell}>
                      {!key.revokedAt && (
                        <button
                          type="button"
                          className={`${secondary} text-red-800`}
                          aria-label={`${t.revoke} ${key.name} (${key.kind})`}
                          onClick={() => {
                            if (!window.confirm(t.confirmRevokeKey(key.name))) return;
                            act(() => keysApi.revoke(key.name, key.kind), t.keyRevoked);
                          }}
                        >
                          {t.revoke}
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      <SigningKeys t={t} keys={signingKeys} act={act} />
    </div>
  );
}

function NewKey({
  t,
  onMade,
  onError,
}: {
  t: Words;
  onMade: (name: string, key: string) => void;
  onError: (message: string) => void;
}) {
  const [name, setName] = useState('');
  const [kind, setKind] = useState<ApiKey['kind']>('secret');
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      const made = await keysApi.create(name.trim(), kind);
      setName('');
      onMade(made.name, made.key);
    } catch (e) {
      onError((e as Error).message);
    }
  };
  return (
    <form className="mb-3 flex flex-wrap items-end gap-2" onSubmit={submit}>
      <label className="flex flex-col text-sm text-slate-800">
        {t.keyName}
        <input required className={input} value={name} onChange={(event) => setName(event.target.value)} />
      </label>
      <label className="flex flex-col text-sm text-slate-800">
        {t.kind}
        <select className={input} value={kind} onChange={(event) => setKind(event.target.value as ApiKey['kind'])}>
          <option value="secret">{t.secret}</option>
          <option value="publishable">{t.publishable}</option>
        </select>
      </label>
      <button type="submit" className={primary}>
        {t.newKey}
      </button>
    </form>
  );
}

function SigningKeys({
  t,
  keys,
  act,
}: {
  t: Words;
  keys: SigningKey[];
  act: (action: () => Promise<unknown>, done: string) => Promise<void>;
}) {
  const [algorithm, setAlgorithm] = useState('ES256');
  const standby = keys.find((key) => key.status === 'standby');
  const statusWord = (status: SigningKey['status']) =>
    ({ standby: t.standby, current: t.current, previous: t.previousKey, revoked: t.revoked })[status];
  return (
    <section aria-labelledby="signing-keys-title">
      <h2 id="signing-keys-title" className="mb-1 text-xl font-bold text-slate-900">
        {t.signingKeys}
      </h2>
      <p className="mb-2 max-w-3xl text-sm text-slate-700">{t.signingKeysHelp}</p>
      <div className="mb-3 flex flex-wrap items-end gap-2">
        <label className="flex flex-col text-sm text-slate-800">
          {t.algorithm}
          <select className={input} value={algorithm} onChange={(event) => setAlgorithm(event.target.value)}>
            <option value="ES256">ES256</option>
            <option value="RS256">RS256</option>
            <option value="HS256">HS256 ({t.jwtSecret})</option>
          </select>
        </label>
        <button
          type="button"
          className={secondary}
          disabled={standby !== undefined}
          onClick={() => act(() => keysApi.createStandby(algorithm), t.standbyMade)}
        >
          {t.createStandby}
        </button>
        <button
          type="button"
          className={primary}
          disabled={standby === undefined}
          onClick={() => act(() => keysApi.rotate(), t.rotated)}
        >
          {t.rotate}
        </button>
      </div>
      <div className="overflow-x-auto">
        <table className="min-w-full border border-slate-200 bg-white text-sm">
          <thead className="bg-slate-100 text-left">
            <tr>
              <th className={cell}>kid</th>
              <th className={cell}>{t.algorithm}</th>
              <th className={cell}>{t.status}</th>
              <th className={cell}>{t.created}</th>
              <th className={cell}>
                <span className="sr-only">{t.revoke}</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.kid} className="border-t border-slate-200" data-status={key.status}>
                <td className={`${cell} font-mono text-xs`}>{key.kid}</td>
                <td className={cell}>{key.algorithm}</td>
                <td className={cell}>{statusWord(key.status)}</td>
                <td className={cell}>{date(key.createdAt)}</td>
                <td className={cell}>
                  {(key.status === 'previous' || key.status === 'standby') && (
                    <button
                      type="button"
                      className={`${secondary} text-red-800`}
                      aria-label={`${t.revoke} ${key.kid}`}
                      onClick={() => {
                        if (!window.confirm(t.confirmRevokeSigningKey)) return;
                        act(() => keysApi.revokeSigningKey(key.kid), t.keyRevoked);
                      }}
                    >
                      {t.revoke}
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
