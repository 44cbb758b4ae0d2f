// Jest config for running the upstream postgrest-js tests (POSTGREST_JS: the
// packages/core/postgrest-js folder of a supabase-js checkout) against the gateway. Mirrors upstream's jest.config.ts (ts-jest, node env,
// one worker, alphabetical order, 30 s timeout, tsconfig.test.json); skips
// test/v12/* and the *.test-d.ts type tests; adds a setup file that tags the
// proxy log with the running test's name.
const path = require('path')
const pkg = process.env.POSTGREST_JS

module.exports = {
  rootDir: pkg,
  testEnvironment: 'node',
  testMatch: ['<rootDir>/test/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/', '/test/v12/', '\\.test-d\\.ts$'],
  transform: {
    '^.+\\.tsx?$': ['ts-jest', { tsconfig: path.join(pkg, 'tsconfig.test.json') }],
  },
  moduleDirectories: ['node_modules', path.join(__dirname, 'node_modules')],
  maxWorkers: 1,
  testSequencer: path.join(pkg, 'test/testSequencer.js'),
  prettierPath: require.resolve('prettier'),
  testTimeout: 30000,
  setupFilesAfterEnv: [path.join(__dirname, 'harness-setup.js')],
}
