import { defineConfig } from 'vitepress'

// The book of the gateway. Every page is listed in the sidebar; a link to a
// page that does not exist fails the build (VitePress's default: do not set
// ignoreDeadLinks).
export default defineConfig({
  title: 'gateway',
  description: 'A self-hosted replacement for the hosted Supabase backend, over PostgreSQL.',
  lang: 'en',
  cleanUrls: true,
  themeConfig: {
    search: { provider: 'local' },
    outline: [2, 3],
    sidebar: [
      {
        text: 'Introduction',
        items: [
          { text: 'What it is', link: '/' },
          { text: 'Getting started', link: '/getting-started' },
        ],
      },
      {
        text: 'Services',
        items: [
          { text: 'REST: /rest/v1', link: '/services/rest' },
          { text: 'Auth: /auth/v1', link: '/services/auth' },
          { text: 'Storage: /storage/v1', link: '/services/storage' },
          { text: 'S3 protocol: /storage/v1/s3', link: '/services/s3' },
          { text: 'Realtime: /realtime/v1', link: '/services/realtime' },
          { text: 'Edge Functions: /functions/v1', link: '/services/functions' },
        ],
      },
      {
        text: 'Running it',
        items: [
          { text: 'Keys', link: '/keys' },
          { text: 'Configuration', link: '/configuration' },
          { text: 'Operating', link: '/operating' },
          { text: 'The operator console', link: '/console' },
          { text: 'Moving in from Supabase', link: '/moving-in' },
          { text: 'Generated types', link: '/types' },
        ],
      },
      {
        text: 'The shop',
        items: [{ text: 'The shop', link: '/shop' }],
      },
      {
        text: 'Inside',
        items: [
          { text: 'Architecture', link: '/architecture' },
          { text: 'Testing', link: '/testing' },
          { text: 'Benchmarks', link: '/benchmarks' },
          { text: 'Benchmark log', link: '/benchmarks-log' },
        ],
      },
    ],
  },
})
