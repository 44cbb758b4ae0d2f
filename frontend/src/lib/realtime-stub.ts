/**
 * Stands in for `@supabase/realtime-js` in the build (vite.config.ts aliases it).
 * The gateway serves no `/realtime/v1` and the shop subscribes to nothing, so the
 * 16 KB (gzip) websocket client would be dead weight against the public routes'
 * 150 KB budget. supabase-js only constructs the client and forwards tokens to it
 * (`setAuth`); asking for a channel fails loudly instead of retrying a socket.
 */
export class RealtimeClient {
  constructor(_url: string, _options?: unknown) {}

  setAuth(_token?: string | null): Promise<void> {
    return Promise.resolve();
  }

  channel(): never {
    throw new Error('Realtime no está disponible en este servidor');
  }

  getChannels(): [] {
    return [];
  }

  removeChannel(): Promise<'ok'> {
    return Promise.resolve('ok');
  }

  removeAllChannels(): Promise<'ok'[]> {
    return Promise.resolve([]);
  }
}
