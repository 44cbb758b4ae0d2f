/**
 * Run-time configuration, served by the gateway at `/config.json`, so one build
 * runs against any deployment (the URL and API key are not baked in).
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
}

let current: AppConfig | undefined;

/** Fetches `/config.json` once; the app renders after it resolves. */
export async function loadConfig(fetcher: typeof fetch = fetch): Promise<AppConfig> {
  const response = await fetcher('/config.json', { headers: { accept: 'application/json' } });
  if (!response.ok) throw new Error(`No se pudo cargar la configuración: ${response.status}`);
  const raw = (await response.json()) as Partial<AppConfig> & {
    publishableKey?: string | null;
    anonKey?: string | null;
  };
  current = {
    supabaseUrl: raw.supabaseUrl || window.location.origin,
    supabaseKey: raw.publishableKey || raw.anonKey || '',
    whatsappNumber: raw.whatsappNumber ?? '',
    contactEmail: raw.contactEmail ?? '',
    contactPhone: raw.contactPhone ?? '',
  };
  return current;
}

/** Sets the configuration directly (unit tests). */
export function setConfig(config: AppConfig): void {
  current = config;
}

export function appConfig(): AppConfig {
  if (!current) throw new Error('configuration not loaded');
  return current;
}
