// Joins jest's JSON results with the proxy's exchange log: for every failing
// test prints its failure message and every HTTP exchange it made.
//   node failures.js results/jest.json results/exchanges.jsonl [--all] > results/failures.md
'use strict'
const fs = require('fs')
const path = require('path')

const [jsonFile, logFile] = process.argv.slice(2)
const all = process.argv.includes('--all')
const results = JSON.parse(fs.readFileSync(jsonFile, 'utf8'))
const exchanges = fs
  .readFileSync(logFile, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((l) => JSON.parse(l))

const byTest = new Map()
for (const e of exchanges) {
  const k = `${e.file}\u0000${e.test}`
  if (!byTest.has(k)) byTest.set(k, [])
  byTest.get(k).push(e)
}

const strip = (s) => s.replace(/\x1b\[[0-9;]*m/g, '')
const clip = (s, n) => (s.length > n ? s.slice(0, n) + `… [${s.length - n} more chars]` : s)
const interesting = ['prefer', 'accept', 'content-type', 'accept-profile', 'content-profile', 'range', 'range-unit', 'x-client-info']

function show(e) {
  const out = []
  const hs = interesting
    .filter((h) => h in e.requestHeaders && h !== 'x-client-info')
    .map((h) => `${h}: ${e.requestHeaders[h]}`)
  out.push(`- \`${e.method} ${decodeURIComponent(e.url)}\``)
  if (e.url !== decodeURIComponent(e.url)) out.push(`  raw: \`${e.url}\``)
  if (hs.length) out.push(`  req headers: ${hs.join(' | ')}`)
  if (e.requestBody) out.push(`  req body: \`${clip(typeof e.requestBody === 'string' ? e.requestBody : JSON.stringify(e.requestBody), 600)}\``)
  const rh = e.responseHeaders || {}
  const rhs = ['content-type', 'content-range', 'preference-applied', 'location']
    .filter((h) => h in rh)
    .map((h) => `${h}: ${rh[h]}`)
  out.push(`  → **${e.status}** ${rhs.join(' | ')}`)
  const body = typeof e.responseBody === 'string' ? e.responseBody : JSON.stringify(e.responseBody || '')
  out.push('  ```\n  ' + clip(body, 1500).replace(/\n/g, '\n  ') + '\n  ```')
  if (e.proxyError) out.push(`  proxy error: ${e.proxyError}`)
  return out.join('\n')
}

const lines = []
for (const file of results.testResults.sort((a, b) => a.name.localeCompare(b.name))) {
  const base = path.basename(file.name)
  const failed = file.assertionResults.filter((a) => all || a.status === 'failed')
  if (file.status === 'failed' && file.assertionResults.length === 0) {
    lines.push(`## ${base}: SUITE FAILED TO RUN\n\n\`\`\`\n${clip(strip(file.message || ''), 4000)}\n\`\`\`\n`)
    continue
  }
  if (!failed.length) continue
  lines.push(`## ${base} (${failed.length} failing)\n`)
  for (const a of failed) {
    lines.push(`### ${a.fullName}  [${a.status}]\n`)
    for (const m of a.failureMessages) {
      // Drop the stack frames below the diff.
      const msg = strip(m)
        .split('\n')
        .filter((l) => !/^\s+at /.test(l))
        .join('\n')
        .trim()
      lines.push('```\n' + clip(msg, 3000) + '\n```')
    }
    const ex = byTest.get(`${base}\u0000${a.fullName}`) || []
    lines.push(ex.length ? `HTTP exchanges (${ex.length}):\n\n${ex.map(show).join('\n')}\n` : '_no HTTP exchange through the proxy_\n')
  }
}
process.stdout.write(lines.join('\n') + '\n')
