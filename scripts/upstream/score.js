// The score table of an upstream jest run: passed, failed and skipped per
// test file and in total, from jest's --json output (each run.sh here).
//   node score.js <jest.json>
const path = require('path')

const results = require(path.resolve(process.argv[2]))
const rows = results.testResults
  .map((file) => {
    const count = { passed: 0, failed: 0, pending: 0 }
    for (const a of file.assertionResults) {
      count[a.status === 'passed' ? 'passed' : a.status === 'failed' ? 'failed' : 'pending']++
    }
    // A file that failed before any test ran (a compile error, a missing server).
    const broken =
      file.status === 'failed' && !file.assertionResults.length
        ? 'SUITE FAILED: ' + (file.message || '').split('\n').slice(0, 3).join(' ')
        : ''
    return [path.basename(file.name), count.passed, count.failed, count.pending, file.assertionResults.length, broken]
  })
  .sort((a, b) => a[0].localeCompare(b[0]))
console.log(['FILE', 'PASSED', 'FAILED', 'SKIPPED', 'TOTAL'].join('\t'))
for (const row of rows) console.log(row.join('\t'))
const skipped = results.numPendingTests + results.numTodoTests
console.log(['TOTAL', results.numPassedTests, results.numFailedTests, skipped, results.numTotalTests].join('\t'))
