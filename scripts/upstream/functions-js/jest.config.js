// Jest config for running the upstream functions-js tests (FUNCTIONS_JS: the
// packages/core/functions-js folder of a supabase-js checkout, with
// relay.ts in place of its Docker relay) against the gateway. Mirrors
// upstream's jest.config.ts (ts-jest, its tsconfig.test.json, its reporter
// setup, one worker, 60 s per test) without coverage; type errors are not
// failures, as upstream's relay types (testcontainers) are gone.
const path = require('path')
const pkg = process.env.FUNCTIONS_JS

module.exports = {
  rootDir: pkg,
  testEnvironment: 'node',
  testPathIgnorePatterns: ['/node_modules/'],
  transform: {
    '^.+\\.tsx?$': [
      require.resolve('ts-jest'),
      { tsconfig: path.join(pkg, 'tsconfig.test.json'), diagnostics: false },
    ],
  },
  moduleFileExtensions: ['ts', 'js', 'cjs', 'json', 'node'],
  moduleDirectories: ['node_modules', path.join(__dirname, 'node_modules')],
  setupFilesAfterEnv: [path.join(pkg, 'test/utils/jest-custom-reporter.ts')],
  maxWorkers: 1,
  testTimeout: 60000,
}
