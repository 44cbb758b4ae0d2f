import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { SessionProvider, useSession } from './session';
import { supabase } from './supabase';

vi.mock('./supabase', async (importOriginal) => {
  const real = await importOriginal<typeof import('./supabase')>();
  return { ...real, supabase: vi.fn(real.supabase) };
});

function Status() {
  return <p>{useSession().status}</p>;
}

afterEach(() => {
  localStorage.clear();
  vi.mocked(supabase).mockClear();
});

describe('SessionProvider', () => {
  it('signs out a browser that keeps no session at once, without loading supabase-js', () => {
    render(<SessionProvider><Status /></SessionProvider>);
    expect(screen.getByText('signed-out')).toBeInTheDocument();
    expect(supabase).not.toHaveBeenCalled();
  });

  it('asks auth-js about a kept session, loading supabase-js for it', async () => {
    localStorage.setItem('sb-gateway-auth-token', '{}');
    render(<SessionProvider><Status /></SessionProvider>);
    expect(screen.getByText('loading')).toBeInTheDocument();
    expect(supabase).toHaveBeenCalled();
    // Not a session auth-js accepts: it settles as signed out.
    expect(await screen.findByText('signed-out')).toBeInTheDocument();
  });
});
