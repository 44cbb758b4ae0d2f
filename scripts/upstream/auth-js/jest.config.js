// Jest config for the upstream auth-js tests (AUTH_JS: packages/core/auth-js
// of a supabase-js checkout) against the gateway. Mirrors upstream's
// jest.config.cli.js / jest.config.docker.js (ts-jest, node environment, its
// tsconfig.test.json) without coverage, one worker. SET=cli runs test/*.test.ts
// (not docker-tests/), SET=docker runs test/docker-tests/.
const path = require('path')
const pkg = process.env.AUTH_JS
const docker = process.env.SET === 'docker'

module.exports = {
  rootDir: pkg,
  testEnvironment: 'node',
  transform: {
    '^.+\\.tsx?$': [require.resolve('ts-jest'), { tsconfig: path.join(pkg, 'tsconfig.test.json') }],
  },
  ...(docker
    ? { testMatch: ['**/docker-tests/**/*.test.ts'] }
    : { testPathIgnorePatterns: ['/node_modules/', '/docker-tests/', '/example/'] }),
  moduleDirectories: ['node_modules', path.join(__dirname, 'node_modules')],
  maxWorkers: 1,
  testTimeout: 30000,
}
