import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach, vi } from 'vitest';

// The shop's public fields (lib/company.ts) are read by headers and footers
// everywhere: no company in unit tests, so the stand-ins show.
vi.mock('@/lib/api/fetchShopCompany', () => ({ fetchShopCompany: vi.fn().mockResolvedValue(null) }));
// No gateway behind unit tests: live updates (lib/api/watchTables.ts) watch nothing.
vi.mock('@/lib/api/watchTables', () => ({ watchTables: vi.fn(() => () => {}) }));
import { setConfig } from '@/lib/config';

setConfig({
  supabaseUrl: 'http://gateway.test',
  supabaseKey: 'sb_publishable_test',
  whatsappNumber: '573001234567',
  contactEmail: 'ventas@tienda.example',
  contactPhone: '+57 300 123 4567',
  socialLinks: { facebook: 'https://www.facebook.com/tienda', instagram: 'https://www.instagram.com/tienda' },
});

afterEach(() => cleanup());
