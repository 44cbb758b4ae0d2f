// node check-secrets.mjs <secrets file> <log file>...: fails, naming the kind
// of each credential (never its value), when any credential that
// record-secrets.mjs noted appears in one of the logs.
import { readFileSync } from 'node:fs'

const [secretsFile, ...logs] = process.argv.slice(2)
const secrets = readFileSync(secretsFile, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
const extra = ['ANON_KEY', 'SERVICE_ROLE_KEY', 'PUBLISHABLE_KEY', 'SECRET_KEY']
  .filter((name) => process.env[name])
  .map((name) => ({ kind: `env ${name}`, value: process.env[name] }))
// Several test processes note the same credential; each is searched once.
const all = [...new Map([...secrets, ...extra].map((secret) => [secret.value, secret])).values()]
let leaks = 0
for (const log of logs) {
  const text = readFileSync(log, 'utf8')
  for (const { kind, value } of all) {
    if (text.includes(value)) {
      leaks += 1
      console.error(`${log}: holds a ${kind} the tests used (${value.length} characters)`)
    }
  }
}
const bytes = logs.reduce((sum, log) => sum + readFileSync(log).length, 0)
console.log(`checked ${all.length} credentials against ${logs.length} logs (${bytes} bytes): ${leaks} found`)
if (all.length < 50) {
  console.error('too few credentials were recorded: is record-secrets.mjs loaded?')
  process.exit(1)
}
process.exit(leaks === 0 ? 0 : 1)
