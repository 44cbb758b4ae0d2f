// Jest config for running the upstream storage-js tests (STORAGE_JS: the
// packages/core/storage-js folder of a supabase-js checkout) against the
// gateway. Mirrors upstream's jest.config.js (ts-jest preset, node
// environment, its tsconfig.test.json, jest's default test match, so *.spec.ts
// too) without coverage; one worker, so tests that share the seed's buckets
// run in upstream's order.
const path = require('path')
const pkg = process.env.STORAGE_JS

module.exports = {
  rootDir: pkg,
  testEnvironment: 'node',
  testPathIgnorePatterns: ['/node_modules/'],
  transform: {
    '^.+\\.tsx?$': [require.resolve('ts-jest'), { tsconfig: path.join(pkg, 'tsconfig.test.json') }],
  },
  moduleDirectories: ['node_modules', path.join(__dirname, 'node_modules')],
  maxWorkers: 1,
  testTimeout: 30000,
}
