import { afterEach, describe, expect, it } from 'vitest';
import { appConfig, loadConfig, setConfig } from './config';

const saved = appConfig();
afterEach(() => setConfig(saved));

function serving(body: object): typeof fetch {
  return (async () => new Response(JSON.stringify(body), { status: 200 })) as typeof fetch;
}

describe('loadConfig', () => {
  it.each([
    ['the publishable key when the gateway serves one', { publishableKey: 'sb_publishable_x', anonKey: 'eyJ.a.b' }, 'sb_publishable_x'],
    ['the legacy anon key when there is no publishable key', { publishableKey: null, anonKey: 'eyJ.a.b' }, 'eyJ.a.b'],
    ['the publishable key when the legacy keys are off', { publishableKey: 'sb_publishable_x', anonKey: null }, 'sb_publishable_x'],
    ['nothing when neither is there', {}, ''],
  ])('hands supabase-js %s', async (_name, body, key) => {
    const config = await loadConfig(serving({ supabaseUrl: 'http://gateway.test', ...body }));
    expect(config.supabaseKey).toBe(key);
  });
});
