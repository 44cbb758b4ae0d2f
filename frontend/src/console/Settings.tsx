// The console's live settings (Studio's auth providers and SMTP pages, read
// only): every setting `gateway serve` runs with, by section, with where it
// came from (a flag, an environment variable or the default). Secrets come
// as set or not set, never their values (gateway/src/console/settings.rs).
import { useEffect, useState } from 'react';
import { call } from './api';
import type { Words } from './i18n';
import { input } from './styles';

export interface LiveSetting {
  section: string;
  flag: string;
  env: string | null;
  value: string;
  secret: boolean;
  source: 'flag' | 'env' | 'default' | 'unset';
}

export const liveSettings = () => call<{ settings: LiveSetting[] }>('GET', '/settings');

/** Auth's sections first: they are what an operator comes here for. */
const FIRST = ['Auth', 'Auth mail'];

export function Settings({ t }: { t: Words }) {
  const [settings, setSettings] = useState<LiveSetting[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const [section, setSection] = useState('');

  useEffect(() => {
    liveSettings().then((answer) => setSettings(answer.settings), (e: Error) => setError(e.message));
  }, []);

  if (error) return <p role="alert" className="text-red-700">{error}</p>;
  if (!settings) return <p className="text-slate-600">{t.loading}</p>;
  if (settings.length === 0) return <p className="text-slate-600">{t.noLiveSettings}</p>;

  const sections = [...new Set(settings.map((s) => s.section))].sort(
    (a, b) => (FIRST.indexOf(a) + 1 || 99) - (FIRST.indexOf(b) + 1 || 99),
  );
  const needle = filter.trim().toLowerCase();
  const shown = (s: LiveSetting) =>
    (!section || s.section === section) &&
    (!needle || [s.flag, s.env ?? '', s.secret ? '' : s.value].some((text) => text.toLowerCase().includes(needle)));
  const value = (s: LiveSetting) => (s.secret ? (s.value === 'set' ? t.secretSet : t.secretNotSet) : s.value);
  const groups = sections
    .map((name) => ({ name, items: settings.filter((s) => s.section === name && shown(s)) }))
    .filter((group) => group.items.length > 0);

  return (
    <div className="flex flex-col gap-3">
      <h2 className="text-xl font-bold text-slate-900">{t.settings}</h2>
      <p className="text-sm text-slate-700">{t.settingsIntro}</p>
      <div className="flex flex-wrap items-end gap-3">
        <label className="flex min-w-0 flex-1 flex-col gap-1 text-sm text-slate-800">
          {t.filterSettings}
          <input type="search" className={input} value={filter} onChange={(event) => setFilter(event.target.value)} />
        </label>
        <label className="flex flex-col gap-1 text-sm text-slate-800">
          {t.section}
          <select className={input} value={section} onChange={(event) => setSection(event.target.value)}>
            <option value="">{t.allSections}</option>
            {sections.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
      </div>
      {groups.length === 0 && <p className="text-slate-600">{t.noSettings}</p>}
      {groups.map((group) => (
        <section key={group.name} aria-labelledby={`settings-${group.name.replaceAll(' ', '-')}`}>
          <h3 id={`settings-${group.name.replaceAll(' ', '-')}`} className="mb-1 font-semibold text-slate-900">
            {group.name}
          </h3>
          <div className="overflow-x-auto">
            <table className="min-w-full border border-slate-200 bg-white text-sm">
              <thead className="bg-slate-100 text-left">
                <tr>
                  <th className="px-2 py-1">{t.setting}</th>
                  <th className="px-2 py-1">{t.value}</th>
                  <th className="px-2 py-1">{t.source}</th>
                </tr>
              </thead>
              <tbody>
                {group.items.map((s) => (
                  <tr key={s.flag} className="border-t border-slate-200 align-top">
                    <td className="px-2 py-1">
                      <span className="block font-mono">{s.flag}</span>
                      {s.env && <span className="block font-mono text-xs text-slate-600">{s.env}</span>}
                    </td>
                    <td className={`break-all px-2 py-1 font-mono ${s.secret ? 'italic text-slate-700' : ''}`}>
                      {value(s)}
                    </td>
                    <td className="px-2 py-1" data-source={s.source}>
                      {t.sources[s.source]}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ))}
    </div>
  );
}
