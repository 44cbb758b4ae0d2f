/**
 * Stands in for `@supabase/realtime-js` in the build (vite.config.ts aliases
 * the bare import to this file) so that its WebSocket client, about 16 KB
 * gzipped, is not part of every page: the public routes hold a budget
 * (scripts/budget.mjs) and most visitors never open a channel.
 *
 * supabase-js constructs a `RealtimeClient` at once and forwards the session's
 * tokens to it (`setAuth`); `supabase().channel(...)` returns a channel at
 * once. This client keeps both, loads the real realtime-js (by its module path,
 * which the alias does not catch) on the first `subscribe`, `send` or `track`,
 * and replays what was asked of the channel on the real one. From then on
 * everything goes straight through.
 */

type RealModule = typeof import('@supabase/realtime-js/dist/module/index.js');
type RealClient = InstanceType<RealModule['RealtimeClient']>;
type RealChannel = ReturnType<RealClient['channel']>;
type Options = ConstructorParameters<RealModule['RealtimeClient']>[1];
type ChannelOptions = Parameters<RealClient['channel']>[1];
type Removed = Awaited<ReturnType<RealClient['removeChannel']>>;
type Unsubscribed = Awaited<ReturnType<RealChannel['unsubscribe']>>;

const loadRealtime = () => import('@supabase/realtime-js/dist/module/index.js');

export class RealtimeClient {
  private real: Promise<RealClient> | undefined;
  /** The last token `setAuth` was given, and whether it was given at all. */
  private auth: { token?: string | null } | undefined;
  private readonly channels: LazyChannel[] = [];

  constructor(
    private readonly endPoint: string,
    private readonly options?: Options,
  ) {}

  /** The real client, loaded and made once. */
  load(): Promise<RealClient> {
    this.real ??= loadRealtime().then(async ({ RealtimeClient: Real }) => {
      const client = new Real(this.endPoint, this.options);
      if (this.auth) await client.setAuth(this.auth.token);
      return client;
    });
    return this.real;
  }

  async setAuth(token?: string | null): Promise<void> {
    this.auth = { token };
    if (this.real) await (await this.real).setAuth(token);
  }

  channel(topic: string, params?: ChannelOptions): LazyChannel {
    const channel = new LazyChannel(this, topic, params);
    this.channels.push(channel);
    return channel;
  }

  getChannels(): LazyChannel[] {
    return [...this.channels];
  }

  async removeChannel(channel: LazyChannel): Promise<Removed> {
    const index = this.channels.indexOf(channel);
    if (index >= 0) this.channels.splice(index, 1);
    const real = await channel.settle();
    if (!real || !this.real) return 'ok';
    return (await this.real).removeChannel(real);
  }

  async removeAllChannels(): Promise<Removed[]> {
    return Promise.all(this.getChannels().map((channel) => this.removeChannel(channel)));
  }

  async disconnect(): Promise<void> {
    if (this.real) (await this.real).disconnect();
  }
}

type Call = (channel: RealChannel) => unknown;

/**
 * A channel whose calls wait for the real client: `on` is recorded and
 * replayed in order, the first `subscribe` (or `send`, `track`) loads it.
 */
export class LazyChannel {
  private real: Promise<RealChannel | undefined> | undefined;
  private readonly calls: Call[] = [];
  private removed = false;

  constructor(
    private readonly client: RealtimeClient,
    readonly topic: string,
    private readonly params?: ChannelOptions,
  ) {}

  /** The real channel if it was ever made; `undefined` when it never was. */
  settle(): Promise<RealChannel | undefined> {
    this.removed = true;
    return this.real ?? Promise.resolve(undefined);
  }

  private start(): Promise<RealChannel | undefined> {
    this.real ??= this.client.load().then((client) => {
      if (this.removed) return undefined;
      const channel = client.channel(this.topic, this.params);
      for (const call of this.calls) call(channel);
      return channel;
    });
    return this.real;
  }

  private later<T>(call: (channel: RealChannel) => T | Promise<T>, fallback: T): Promise<T> {
    return this.start().then((channel) => (channel ? call(channel) : fallback));
  }

  on(...args: unknown[]): this {
    const call: Call = (channel) => (channel.on as (...a: unknown[]) => unknown)(...args);
    this.calls.push(call);
    void this.real?.then((channel) => channel && call(channel));
    return this;
  }

  subscribe(callback?: (status: string, err?: Error) => void, timeout?: number): this {
    this.later((channel) => channel.subscribe(callback, timeout), undefined).catch((error: unknown) =>
      callback?.('CHANNEL_ERROR', error instanceof Error ? error : new Error(String(error))),
    );
    return this;
  }

  send(...args: Parameters<RealChannel['send']>): ReturnType<RealChannel['send']> {
    return this.later((channel) => channel.send(...args), 'error' as const);
  }

  track(...args: Parameters<RealChannel['track']>): ReturnType<RealChannel['track']> {
    return this.later((channel) => channel.track(...args), 'error' as const);
  }

  untrack(...args: Parameters<RealChannel['untrack']>): ReturnType<RealChannel['untrack']> {
    return this.later((channel) => channel.untrack(...args), 'ok' as const);
  }

  async unsubscribe(timeout?: number): Promise<Unsubscribed> {
    const channel = await (this.real ?? Promise.resolve(undefined));
    return channel ? channel.unsubscribe(timeout) : 'ok';
  }
}
