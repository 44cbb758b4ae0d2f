import '@testing-library/jest-dom/vitest';
import { cleanup } from '@testing-library/react';
import { afterEach } from 'vitest';
import { setConfig } from '@/lib/config';

setConfig({
  supabaseUrl: 'http://gateway.test',
  anonKey: 'anon-key',
  whatsappNumber: '573001234567',
  contactEmail: 'ventas@tienda.example',
  contactPhone: '+57 300 123 4567',
  socialLinks: { facebook: 'https://www.facebook.com/tienda', instagram: 'https://www.instagram.com/tienda' },
});

afterEach(() => cleanup());
