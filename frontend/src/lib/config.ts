/**
 * Run-time configuration, so one build runs against any deployment (the URL
 * and API key are not baked in). The gateway writes it into `index.html` as
 * `window.__SHOP_CONFIG__`, so the app starts without a round trip;
 * `/config.json` serves the same object, for `npm run dev` and pages served
 * without it.
 */
export interface AppConfig {
  /** Base URL of the gateway; empty means the origin that served the app. */
  supabaseUrl: string;
  /**
   * The API key the browser uses: the gateway's publishable key
   * (`sb_publishable_...`), or the legacy anon JWT when the gateway serves no
   * publishable key.
   */
  supabaseKey: string;
  /** Chat number for wa.me links, digits only with country code. */
  whatsappNumber: string;
  contactEmail: string;
  contactPhone: string;
  /** The shop's social profiles by network (`facebook`, `instagram`, `tiktok`); the ones unset are absent. */
  socialLinks: Partial<Record<string, string>>;
}

declare global {
  interface Window {
    __SHOP_CONFIG__?: RawConfig;
  }
}

let current: AppConfig | undefined;

/** The configuration inline in the page, if the gateway put it there. */
export function inlineConfig(): AppConfig | undefined {
  const raw = window.__SHOP_CONFIG__;
  if (!raw) return undefined;
  current = complete(raw);
  return current;
}

/** The inline configuration, or `/config.json` fetched once; the app renders after it resolves. */
export async function loadConfig(fetcher: typeof fetch = fetch): Promise<AppConfig> {
  const inline = inlineConfig();
  if (inline) return inline;
  const response = await fetcher('/config.json', { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`No se pudo cargar la configuración: ${response.status}`);
  current = complete((await response.json()) as RawConfig);
  return current;
}

/** What the gateway serves: the key as `publishableKey`, or `anonKey` when it has none. */
type RawConfig = Partial<AppConfig> & { publishableKey?: string | null; anonKey?: string | null };

function complete(raw: RawConfig): AppConfig {
  return {
    supabaseUrl: raw.supabaseUrl || window.location.origin,
    supabaseKey: raw.publishableKey || raw.anonKey || '',
    whatsappNumber: raw.whatsappNumber ?? '',
    contactEmail: raw.contactEmail ?? '',
    contactPhone: raw.contactPhone ?? '',
    socialLinks: raw.socialLinks ?? {},
  };
}

/** Sets the configuration directly (unit tests). */
export function setConfig(config: AppConfig): void {
  current = config;
}

export function appConfig(): AppConfig {
  if (!current) throw new Error('configuration not loaded');
  return current;
}
