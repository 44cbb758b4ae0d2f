import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

// Each test gets the modules afresh (the client is made once per page), with
// the test configuration of src/test/setup.ts.
async function fresh() {
  const { setConfig } = await import('./config');
  setConfig({
    supabaseUrl: 'http://gateway.test',
    supabaseKey: 'sb_publishable_test',
    whatsappNumber: '',
    contactEmail: '',
    contactPhone: '',
    socialLinks: {},
  });
  return import('./supabase');
}

beforeEach(() => {
  vi.resetModules();
  localStorage.clear();
});

afterEach(() => localStorage.clear());

describe('the one supabase-js client', () => {
  it('is the same client for every caller', async () => {
    const { supabase } = await fresh();
    const [a, b] = await Promise.all([supabase(), supabase()]);
    expect(a).toBe(b);
  });

  it('is handed to a follower once someone else loads it, and not loaded by following', async () => {
    const { supabase, whenSupabaseLoaded } = await fresh();
    const followed = vi.fn();
    whenSupabaseLoaded(followed);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(followed).not.toHaveBeenCalled();
    const client = await supabase();
    expect(followed).toHaveBeenCalledWith(client);
  });

  it('is not handed to a follower that cancelled', async () => {
    const { supabase, whenSupabaseLoaded } = await fresh();
    const followed = vi.fn();
    whenSupabaseLoaded(followed)();
    await supabase();
    expect(followed).not.toHaveBeenCalled();
  });

  it('waits while held, and loads once the hold settles, even as a failure', async () => {
    const { holdSupabaseUntil, supabase } = await fresh();
    let release!: (reason: Error) => void;
    holdSupabaseUntil(new Promise((_resolve, reject) => (release = reject)));
    const loaded = vi.fn();
    const client = supabase().then(loaded);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(loaded).not.toHaveBeenCalled();
    release(new Error('the page never loaded'));
    await client;
    expect(loaded).toHaveBeenCalledOnce();
  });
});

describe('hasStoredSession', () => {
  it.each([
    ['no keys', [], false],
    ["supabase-js's session key", ['sb-gateway-auth-token'], true],
    ['another key of supabase-js', ['sb-gateway-auth-token-code-verifier'], false],
    ['an unrelated key', ['theme'], false],
  ])('%s: %s', async (_name, keys, expected) => {
    for (const key of keys) localStorage.setItem(key, '{}');
    const { hasStoredSession } = await fresh();
    expect(hasStoredSession()).toBe(expected);
  });
});
