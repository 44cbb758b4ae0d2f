// The console's storage (Studio's Storage page): buckets with their settings
// (made, changed, deleted), and a bucket's objects as folders, with upload,
// download, move, delete, a signed URL, and an image preview through the
// transform endpoint. Everything goes to `/storage/v1` as the service role,
// through the console's own API.
import { type FormEvent, useCallback, useEffect, useRef, useState } from 'react';
import { type Bucket, type StorageEntry, keyPath, storageApi, storageUrl } from './api';
import type { Words } from './i18n';
import { focusRing, input, primary, secondary } from './styles';

const cell = 'px-2 py-1';
const isImage = (entry: StorageEntry) => (entry.metadata?.mimetype ?? '').startsWith('image/');
const size = (bytes: number | undefined) =>
  bytes === undefined ? '' : bytes < 1024 ? `${bytes} B` : bytes < 1048576 ? `${(bytes / 1024).toFixed(1)} KB` : `${(bytes / 1048576).toFixed(1)} MB`;

export function Storage({ t }: { t: Words }) {
  const [buckets, setBuckets] = useState<Bucket[] | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const load = useCallback(() => {
    storageApi.buckets().then(setBuckets, (e: Error) => setMessage(e.message));
  }, []);
  useEffect(load, [load]);
  const bucket = buckets?.find((b) => b.id === chosen) ?? null;

  return (
    <div className="flex flex-col gap-4 md:flex-row">
      <nav aria-label={t.buckets} className="md:w-64 md:shrink-0">
        <h2 className="mb-2 text-xl font-bold text-slate-900">{t.buckets}</h2>
        {!buckets ? (
          <p className="text-slate-600">{t.loading}</p>
        ) : buckets.length === 0 ? (
          <p className="text-slate-600">{t.noBuckets}</p>
        ) : (
          <ul className="mb-3 flex flex-col gap-1">
            {buckets.map((b) => (
              <li key={b.id}>
                <button
                  type="button"
                  aria-current={chosen === b.id ? 'true' : undefined}
                  className={`w-full rounded px-2 py-1 text-left text-sm ${chosen === b.id ? 'bg-brand-100 text-brand-900' : 'text-slate-800 hover:bg-slate-100'} ${focusRing}`}
                  onClick={() => setChosen(b.id)}
                >
                  {b.name} {b.public ? `(${t.publicBucket})` : ''}
                </button>
              </li>
            ))}
          </ul>
        )}
        <NewBucket
          t={t}
          onMade={(name) => {
            load();
            setChosen(name);
          }}
          onError={setMessage}
        />
        {message && (
          <p role="alert" className="mt-2 text-sm text-red-700">
            {message}
          </p>
        )}
      </nav>
      <section className="min-w-0 flex-1" aria-live="polite">
        {bucket ? (
          <BucketView
            key={bucket.id}
            t={t}
            bucket={bucket}
            onChanged={load}
            onDeleted={() => {
              setChosen(null);
              load();
            }}
          />
        ) : (
          <p className="text-slate-600">{t.chooseBucket}</p>
        )}
      </section>
    </div>
  );
}

/** `"image/*, text/plain"` as a list, or null when empty. */
const mimeList = (text: string) => {
  const list = text.split(',').map((s) => s.trim()).filter(Boolean);
  return list.length ? list : null;
};
const limitBytes = (text: string) => (text.trim() ? Number(text) : null);

function NewBucket({ t, onMade, onError }: { t: Words; onMade: (name: string) => void; onError: (m: string) => void }) {
  const [name, setName] = useState('');
  const [isPublic, setPublic] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await storageApi.createBucket({ name: name.trim(), public: isPublic, file_size_limit: null, allowed_mime_types: null });
      setName('');
      onMade(name.trim());
    } catch (e) {
      onError((e as Error).message);
    }
  };
  return (
    <form className="flex flex-col gap-2 rounded-md border border-slate-200 bg-white p-2" onSubmit={submit}>
      <label className="flex flex-col text-sm text-slate-800">
        {t.bucketName}
        <input required className={input} value={name} onChange={(event) => setName(event.target.value)} />
      </label>
      <label className="flex items-center gap-2 text-sm text-slate-800">
        <input type="checkbox" checked={isPublic} onChange={(event) => setPublic(event.target.checked)} />
        {t.publicBucket}
      </label>
      <button type="submit" className={primary}>
        {t.newBucket}
      </button>
    </form>
  );
}

function BucketView({ t, bucket, onChanged, onDeleted }: { t: Words; bucket: Bucket; onChanged: () => void; onDeleted: () => void }) {
  const [prefix, setPrefix] = useState('');
  const [entries, setEntries] = useState<StorageEntry[] | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [signed, setSigned] = useState<{ key: string; url: string } | null>(null);
  const file = useRef<HTMLInputElement>(null);

  const load = useCallback(() => {
    storageApi.list(bucket.id, prefix).then(setEntries, (e: Error) => setMessage(e.message));
  }, [bucket.id, prefix]);
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
  const upload = async (event: FormEvent) => {
    event.preventDefault();
    const chosen = file.current?.files?.[0];
    if (!chosen) return;
    const percent = (sent: number) => (chosen.size ? Math.floor((sent * 100) / chosen.size) : 100);
    await act(
      () => storageApi.upload(bucket.id, `${prefix}${chosen.name}`, chosen, (sent) => setMessage(t.uploading(chosen.name, percent(sent)))),
      t.uploaded(chosen.name),
    );
    if (file.current) file.current.value = '';
  };
  const folders = prefix.split('/').filter(Boolean);

  return (
    <div className="flex flex-col gap-4">
      <BucketSettings t={t} bucket={bucket} onChanged={onChanged} onDeleted={onDeleted} />
      <nav aria-label={t.folder} className="flex flex-wrap items-center gap-1 text-sm">
        <button type="button" className={`rounded px-1 text-brand-800 underline ${focusRing}`} onClick={() => setPrefix('')}>
          {bucket.name}
        </button>
        {folders.map((folder, i) => (
          <span key={folders.slice(0, i + 1).join('/')} className="flex items-center gap-1">
            /
            <button
              type="button"
              className={`rounded px-1 text-brand-800 underline ${focusRing}`}
              onClick={() => setPrefix(`${folders.slice(0, i + 1).join('/')}/`)}
            >
              {folder}
            </button>
          </span>
        ))}
      </nav>
      <form className="flex flex-wrap items-end gap-2" onSubmit={upload}>
        <label className="flex flex-col text-sm text-slate-800">
          {t.fileToUpload}
          <input ref={file} type="file" className={`${input} max-w-full`} />
        </label>
        <button type="submit" className={primary}>
          {t.upload}
        </button>
      </form>
      {message && (
        <p role="status" className="text-sm text-slate-800">
          {message}
        </p>
      )}
      {signed && (
        <p className="break-all rounded-md border border-slate-200 bg-white p-2 text-sm">
          {t.signedUrlFor(signed.key)}{' '}
          <a className="text-brand-800 underline" href={signed.url} data-testid="signed-url">
            {signed.url}
          </a>
        </p>
      )}
      {!entries ? (
        <p className="text-slate-600">{t.loading}</p>
      ) : entries.length === 0 ? (
        <p className="text-slate-600">{t.emptyFolder}</p>
      ) : (
        <div className="overflow-x-auto">
          <table className="min-w-full border border-slate-200 bg-white text-sm" aria-label={t.objects}>
            <thead className="bg-slate-100 text-left">
              <tr>
                <th className={cell}>{t.name}</th>
                <th className={cell}>{t.size}</th>
                <th className={cell}>{t.type}</th>
                <th className={cell}>
                  <span className="sr-only">{t.actions}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {entries.map((entry) => {
                const key = `${prefix}${entry.name}`;
                if (entry.id === null) {
                  return (
                    <tr key={key} className="border-t border-slate-200">
                      <td className={cell} colSpan={4}>
                        <button type="button" className={`rounded text-brand-800 underline ${focusRing}`} onClick={() => setPrefix(`${key}/`)}>
                          {entry.name}/
                        </button>
                      </td>
                    </tr>
                  );
                }
                return (
                  <tr key={key} className="border-t border-slate-200">
                    <td className={`${cell} break-all`}>{entry.name}</td>
                    <td className={`${cell} whitespace-nowrap`}>{size(entry.metadata?.size)}</td>
                    <td className={cell}>{entry.metadata?.mimetype ?? ''}</td>
                    <td className={cell}>
                      <div className="flex flex-wrap gap-1">
                        {isImage(entry) && (
                          <button type="button" className={secondary} aria-label={`${t.imagePreview} ${entry.name}`} onClick={() => setPreview(key)}>
                            {t.imagePreview}
                          </button>
                        )}
                        <a
                          className={secondary}
                          aria-label={`${t.download} ${entry.name}`}
                          href={storageUrl(`/object/authenticated/${keyPath(bucket.id, key)}?download=`)}
                        >
                          {t.download}
                        </a>
                        <button
                          type="button"
                          className={secondary}
                          aria-label={`${t.signedUrl} ${entry.name}`}
                          onClick={() =>
                            act(async () => {
                              const answer = await storageApi.sign(bucket.id, key, 3600);
                              setSigned({ key, url: `${window.location.origin}/storage/v1${encodeURI(answer.signedURL)}` });
                            }, t.signedUrlMade)
                          }
                        >
                          {t.signedUrl}
                        </button>
                        <button
                          type="button"
                          className={secondary}
                          aria-label={`${t.move} ${entry.name}`}
                          onClick={() => {
                            const to = window.prompt(t.moveTo, key);
                            if (to && to !== key) act(() => storageApi.move(bucket.id, key, to), t.moved);
                          }}
                        >
                          {t.move}
                        </button>
                        <button
                          type="button"
                          className={`${secondary} text-red-800`}
                          aria-label={`${t.delete} ${entry.name}`}
                          onClick={() => {
                            if (window.confirm(t.confirmDeleteObject(entry.name))) act(() => storageApi.remove(bucket.id, [key]), t.deleted);
                          }}
                        >
                          {t.delete}
                        </button>
                      </div>
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {preview && (
        <figure className="rounded-md border border-slate-200 bg-white p-2">
          <figcaption className="mb-1 flex items-center justify-between gap-2 text-sm font-semibold text-slate-900">
            {preview}
            <button type="button" className={secondary} onClick={() => setPreview(null)}>
              {t.close}
            </button>
          </figcaption>
          <img
            alt={t.previewOf(preview)}
            className="max-h-80 max-w-full"
            src={storageUrl(`/render/image/authenticated/${keyPath(bucket.id, preview)}?width=480&height=320&resize=contain`)}
          />
        </figure>
      )}
    </div>
  );
}

function BucketSettings({ t, bucket, onChanged, onDeleted }: { t: Words; bucket: Bucket; onChanged: () => void; onDeleted: () => void }) {
  const [isPublic, setPublic] = useState(bucket.public);
  const [limit, setLimit] = useState(bucket.file_size_limit === null ? '' : String(bucket.file_size_limit));
  const [types, setTypes] = useState((bucket.allowed_mime_types ?? []).join(', '));
  const [message, setMessage] = useState<string | null>(null);
  const save = async (event: FormEvent) => {
    event.preventDefault();
    try {
      await storageApi.updateBucket(bucket.id, { public: isPublic, file_size_limit: limitBytes(limit), allowed_mime_types: mimeList(types) });
      setMessage(t.bucketSaved);
      onChanged();
    } catch (e) {
      setMessage((e as Error).message);
    }
  };
  return (
    <details className="rounded-md border border-slate-200 bg-white p-2">
      <summary className={`cursor-pointer text-lg font-bold text-slate-900 ${focusRing}`}>
        {t.bucketSettings(bucket.name)}
      </summary>
      <form className="mt-2 flex flex-wrap items-end gap-3" onSubmit={save}>
        <label className="flex items-center gap-2 text-sm text-slate-800">
          <input type="checkbox" checked={isPublic} onChange={(event) => setPublic(event.target.checked)} />
          {t.publicBucket}
        </label>
        <label className="flex flex-col text-sm text-slate-800">
          {t.sizeLimit}
          <input inputMode="numeric" className={`${input} w-36`} value={limit} onChange={(event) => setLimit(event.target.value)} />
        </label>
        <label className="flex min-w-0 flex-1 flex-col text-sm text-slate-800">
          {t.mimeTypes}
          <input className={input} placeholder="image/*, application/pdf" value={types} onChange={(event) => setTypes(event.target.value)} />
        </label>
        <button type="submit" className={primary}>
          {t.save}
        </button>
        <button
          type="button"
          className={`${secondary} text-red-800`}
          onClick={async () => {
            if (!window.confirm(t.confirmDeleteBucket(bucket.name))) return;
            try {
              await storageApi.deleteBucket(bucket.id);
              onDeleted();
            } catch (e) {
              setMessage((e as Error).message);
            }
          }}
        >
          {t.deleteBucket}
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
