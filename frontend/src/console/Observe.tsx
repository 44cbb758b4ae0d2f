// The console's Observe page (Studio's Logs and Reports): the requests this
// gateway answered lately, filtered by service, status and request id, and
// its metrics as small inline SVG charts (no chart library): requests,
// errors, latency percentiles, the pool, realtime's sockets, and realtime's
// topics with their channels and presences and the change feed's lag.
import { type FormEvent, useCallback, useEffect, useState } from 'react';
import { type LogEntry, type Metrics, observeApi } from './api';
import type { Words } from './i18n';
import { input, secondary } from './styles';

const SERVICES = ['', 'rest', 'auth', 'storage', 'realtime', 'gateway'];
/** Samples of the pool and sockets kept in the page, one per refresh. */
const HISTORY = 60;
const REFRESH_MS = 3000;
const cell = 'px-2 py-1';

interface Line {
  label: string;
  values: number[];
  color: string;
}

/** A chart of one or more lines (or bars) over the same x axis, scaled to the largest value. */
export function Chart({ title, lines, unit, bars = false }: { title: string; lines: Line[]; unit: string; bars?: boolean }) {
  const width = 300;
  const height = 80;
  const longest = Math.max(1, ...lines.map((line) => line.values.length));
  const top = Math.max(1, ...lines.flatMap((line) => line.values));
  const x = (i: number) => (longest === 1 ? width / 2 : (i / (longest - 1)) * width);
  const y = (v: number) => height - (v / top) * (height - 4);
  const last = lines.map((line) => `${line.label} ${format(line.values.at(-1) ?? 0)} ${unit}`).join(', ');
  return (
    <figure className="rounded-md border border-slate-200 bg-white p-2">
      <figcaption className="flex flex-wrap items-baseline justify-between gap-2 text-sm">
        <span className="font-semibold text-slate-900">{title}</span>
        <span className="text-slate-700">{last}</span>
      </figcaption>
      <svg viewBox={`0 0 ${width} ${height}`} className="mt-1 h-20 w-full" role="img" aria-label={`${title}: ${last}`}>
        <line x1="0" y1={height} x2={width} y2={height} stroke="#cbd5e1" />
        {lines.map((line) =>
          bars ? (
            line.values.map((v, i) => {
              const w = width / longest;
              return v > 0 ? (
                <rect key={`${line.label}-${i}`} x={i * w + 1} y={y(v)} width={Math.max(1, w - 2)} height={height - y(v)} fill={line.color} />
              ) : null;
            })
          ) : (
            <polyline
              key={line.label}
              fill="none"
              stroke={line.color}
              strokeWidth="2"
              points={line.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}
            />
          ),
        )}
      </svg>
      <p className="flex flex-wrap gap-3 text-xs text-slate-700">
        {lines.map((line) => (
          <span key={line.label} className="flex items-center gap-1">
            <span aria-hidden="true" className="inline-block h-2 w-3" style={{ background: line.color }} />
            {line.label}
          </span>
        ))}
        <span className="ml-auto">
          max {format(top)} {unit}
        </span>
      </p>
    </figure>
  );
}

function format(value: number) {
  return value >= 100 || Number.isInteger(value) ? String(Math.round(value)) : value.toFixed(1);
}

export function Observe({ t }: { t: Words }) {
  const [filter, setFilter] = useState({ service: '', status: '', requestId: '' });
  const [form, setForm] = useState(filter);
  const [live, setLive] = useState(true);
  const [entries, setEntries] = useState<LogEntry[] | null>(null);
  const [metrics, setMetrics] = useState<Metrics | null>(null);
  const [history, setHistory] = useState<{ inUse: number[]; max: number[]; sockets: number[] }>({
    inUse: [],
    max: [],
    sockets: [],
  });
  const [error, setError] = useState<string | null>(null);

  const refresh = useCallback(() => {
    observeApi.logs(filter).then(
      (answer) => {
        setEntries(answer.entries);
        setError(null);
      },
      (e: Error) => setError(e.message),
    );
    observeApi.metrics().then(
      (answer) => {
        setMetrics(answer);
        setHistory((h) => ({
          inUse: [...h.inUse, answer.pool.inUse].slice(-HISTORY),
          max: [...h.max, answer.pool.max].slice(-HISTORY),
          sockets: [...h.sockets, answer.realtime.sockets].slice(-HISTORY),
        }));
      },
      (e: Error) => setError(e.message),
    );
  }, [filter]);
  useEffect(() => {
    refresh();
    if (!live) return undefined;
    const timer = window.setInterval(refresh, REFRESH_MS);
    return () => window.clearInterval(timer);
  }, [refresh, live]);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setFilter({ ...form, status: form.status.trim(), requestId: form.requestId.trim() });
  };
  const buckets = metrics?.buckets ?? [];

  return (
    <div className="flex flex-col gap-6">
      <section aria-labelledby="metrics-title">
        <h2 id="metrics-title" className="mb-2 text-xl font-bold text-slate-900">
          {t.metrics}
        </h2>
        {metrics && (
          <p className="mb-2 text-sm text-slate-700">
            {t.lastMinutes(metrics.windowSeconds / 60, metrics.bucketSeconds)} · {t.requests}: {metrics.total.requests} ·{' '}
            {t.errors}: {metrics.total.errors} · p50 {format(metrics.total.p50Ms)} ms · p95 {format(metrics.total.p95Ms)} ms · p99{' '}
            {format(metrics.total.p99Ms)} ms
          </p>
        )}
        <div className="grid grid-cols-1 gap-3 md:grid-cols-2 xl:grid-cols-3">
          <Chart title={t.requests} unit="" bars lines={[{ label: t.requests, color: '#1d4ed8', values: buckets.map((b) => b.requests) }]} />
          <Chart title={t.errors} unit="" bars lines={[{ label: '5xx', color: '#b91c1c', values: buckets.map((b) => b.errors) }]} />
          <Chart
            title={t.latency}
            unit="ms"
            lines={[
              { label: 'p50', color: '#15803d', values: buckets.map((b) => b.p50Ms) },
              { label: 'p95', color: '#b45309', values: buckets.map((b) => b.p95Ms) },
              { label: 'p99', color: '#b91c1c', values: buckets.map((b) => b.p99Ms) },
            ]}
          />
          <Chart
            title={t.pool}
            unit=""
            lines={[
              { label: t.inUse, color: '#1d4ed8', values: history.inUse },
              { label: t.poolSize, color: '#64748b', values: history.max },
            ]}
          />
          <Chart title={t.sockets} unit="" lines={[{ label: t.sockets, color: '#7c3aed', values: history.sockets }]} />
        </div>
      </section>
      {metrics && (
        <section aria-labelledby="realtime-title">
          <h2 id="realtime-title" className="mb-2 text-xl font-bold text-slate-900">
            {t.realtime}
          </h2>
          <p className="mb-2 text-sm text-slate-700">
            {t.sockets}: {metrics.realtime.sockets} · {t.channels}: {metrics.realtime.channels} · {t.changesLag}:{' '}
            {metrics.realtime.changesLagSeconds === null ? '—' : `${format(metrics.realtime.changesLagSeconds * 1000)} ms`}
          </p>
          {metrics.realtime.topics.length === 0 ? (
            <p className="text-sm text-slate-600">{t.noTopics}</p>
          ) : (
            <table className="min-w-full border border-slate-200 bg-white text-sm">
              <thead className="bg-slate-100 text-left">
                <tr>
                  <th className={cell}>{t.topic}</th>
                  <th className={cell}>{t.channels}</th>
                  <th className={cell}>{t.presences}</th>
                </tr>
              </thead>
              <tbody>
                {metrics.realtime.topics.map((topic) => (
                  <tr key={`${topic.topic}-${topic.private}`} className="border-t border-slate-200">
                    <td className={cell}>
                      {topic.topic} {topic.private ? `(${t.private})` : ''}
                    </td>
                    <td className={cell}>{topic.channels}</td>
                    <td className={cell}>{topic.presences}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      )}
      <section aria-labelledby="logs-title">
        <h2 id="logs-title" className="mb-2 text-xl font-bold text-slate-900">
          {t.logs}
        </h2>
        <form role="search" className="mb-3 flex flex-wrap items-end gap-2" onSubmit={submit}>
          <label className="flex flex-col text-sm text-slate-800">
            {t.service}
            <select className={input} value={form.service} onChange={(event) => setForm({ ...form, service: event.target.value })}>
              {SERVICES.map((service) => (
                <option key={service} value={service}>
                  {service || t.all}
                </option>
              ))}
            </select>
          </label>
          <label className="flex flex-col text-sm text-slate-800">
            {t.status}
            <input
              className={`${input} w-24`}
              placeholder="4xx"
              value={form.status}
              onChange={(event) => setForm({ ...form, status: event.target.value })}
            />
          </label>
          <label className="flex min-w-0 flex-1 flex-col text-sm text-slate-800">
            {t.requestId}
            <input
              type="search"
              className={input}
              value={form.requestId}
              onChange={(event) => setForm({ ...form, requestId: event.target.value })}
            />
          </label>
          <button type="submit" className={secondary}>
            {t.applyFilter}
          </button>
          <label className="flex items-center gap-2 text-sm text-slate-800">
            <input type="checkbox" checked={live} onChange={(event) => setLive(event.target.checked)} />
            {t.live}
          </label>
        </form>
        {error && (
          <p role="alert" className="text-red-700">
            {error}
          </p>
        )}
        {!entries ? (
          <p className="text-slate-600">{t.loading}</p>
        ) : entries.length === 0 ? (
          <p className="text-slate-600">{t.noRequests}</p>
        ) : (
          <div className="overflow-x-auto">
            <table className="min-w-full border border-slate-200 bg-white text-sm" aria-label={t.logs}>
              <thead className="bg-slate-100 text-left">
                <tr>
                  <th className={cell}>{t.time}</th>
                  <th className={cell}>{t.service}</th>
                  <th className={cell}>{t.request}</th>
                  <th className={cell}>{t.status}</th>
                  <th className={cell}>ms</th>
                  <th className={cell}>{t.requestId}</th>
                </tr>
              </thead>
              <tbody>
                {entries.map((entry, i) => (
                  <tr key={`${entry.requestId}-${entry.at}-${i}`} className="border-t border-slate-200">
                    <td className={`${cell} whitespace-nowrap`}>{new Date(entry.at).toLocaleTimeString()}</td>
                    <td className={cell}>{entry.service}</td>
                    <td className={`${cell} break-all font-mono text-xs`}>
                      {entry.method} {entry.path}
                    </td>
                    <td className={`${cell} ${entry.status >= 500 ? 'font-bold text-red-800' : entry.status >= 400 ? 'text-amber-800' : ''}`}>
                      {entry.status}
                    </td>
                    <td className={cell}>{format(entry.durationMs)}</td>
                    <td className={`${cell} break-all font-mono text-xs`}>{entry.requestId}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
