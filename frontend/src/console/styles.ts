// The console's shared class names: one focus ring and three buttons.

export const focusRing = 'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-600';
export const button = `rounded-md px-3 py-2 text-sm font-medium ${focusRing}`;
export const primary = `${button} bg-brand-700 text-white hover:bg-brand-800 disabled:opacity-60`;
export const secondary = `${button} border border-slate-300 bg-white text-slate-800 hover:bg-slate-100`;
export const input = `rounded-md border border-slate-300 bg-white px-2 py-1 text-sm ${focusRing}`;
