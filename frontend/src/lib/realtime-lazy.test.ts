import { beforeEach, describe, expect, it, vi } from 'vitest';

// A stand-in for the real realtime-js module, which the lazy client imports
// by its module path on the first subscription.
const made: { client: FakeClient[]; channel: FakeChannel[] } = { client: [], channel: [] };

class FakeChannel {
  readonly calls: string[] = [];
  constructor(readonly topic: string) {
    made.channel.push(this);
  }
  on(type: string, filter: { table?: string }) {
    this.calls.push(`on ${type} ${filter.table ?? ''}`.trim());
    return this;
  }
  subscribe() {
    this.calls.push('subscribe');
    return this;
  }
  unsubscribe() {
    this.calls.push('unsubscribe');
    return Promise.resolve('ok');
  }
}

class FakeClient {
  readonly tokens: (string | null | undefined)[] = [];
  readonly removed: FakeChannel[] = [];
  constructor(readonly url: string) {
    made.client.push(this);
  }
  setAuth(token?: string | null) {
    this.tokens.push(token);
    return Promise.resolve();
  }
  channel(topic: string) {
    return new FakeChannel(topic);
  }
  removeChannel(channel: FakeChannel) {
    this.removed.push(channel);
    return Promise.resolve('ok');
  }
}

vi.mock('@supabase/realtime-js/dist/module/index.js', () => ({ RealtimeClient: FakeClient }));

const { RealtimeClient } = await import('./realtime-lazy');
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('the lazy realtime client', () => {
  beforeEach(() => {
    made.client.length = 0;
    made.channel.length = 0;
  });

  it('loads nothing until a channel subscribes', async () => {
    const client = new RealtimeClient('ws://gateway.test/realtime/v1');
    await client.setAuth('token-1');
    client.channel('shop:a').on('postgres_changes', { table: 'products' }, () => {});
    await settle();
    expect(made.client).toHaveLength(0);
  });

  it('replays the bindings in order, then subscribes, with the last token', async () => {
    const client = new RealtimeClient('ws://gateway.test/realtime/v1');
    await client.setAuth('token-1');
    await client.setAuth('token-2');
    client
      .channel('shop:a')
      .on('postgres_changes', { table: 'products' }, () => {})
      .on('postgres_changes', { table: 'brands' }, () => {})
      .subscribe();
    await settle();
    expect(made.client).toHaveLength(1);
    expect(made.client.at(0)?.tokens).toEqual(['token-2']);
    expect(made.channel.at(0)?.calls).toEqual(['on postgres_changes products', 'on postgres_changes brands', 'subscribe']);
  });

  it('makes one real client for every channel, and forwards later tokens', async () => {
    const client = new RealtimeClient('ws://gateway.test/realtime/v1');
    client.channel('shop:a').subscribe();
    client.channel('shop:b').subscribe();
    await settle();
    await client.setAuth('token-3');
    expect(made.client).toHaveLength(1);
    expect(made.channel.map((c) => c.topic)).toEqual(['shop:a', 'shop:b']);
    expect(made.client.at(0)?.tokens).toEqual(['token-3']);
  });

  it('removes a subscribed channel from the real client, and one never subscribed without loading it', async () => {
    const client = new RealtimeClient('ws://gateway.test/realtime/v1');
    const idle = client.channel('shop:idle');
    expect(await client.removeChannel(idle)).toBe('ok');
    expect(made.client).toHaveLength(0);
    const live = client.channel('shop:live').subscribe();
    await settle();
    expect(await client.removeChannel(live)).toBe('ok');
    expect(made.client.at(0)?.removed).toEqual([made.channel.at(0)]);
    expect(client.getChannels()).toEqual([]);
  });

  it('never makes the real channel of one removed before the client loaded', async () => {
    const client = new RealtimeClient('ws://gateway.test/realtime/v1');
    const channel = client.channel('shop:gone').subscribe();
    await client.removeChannel(channel);
    await settle();
    expect(made.channel).toHaveLength(0);
  });
});
