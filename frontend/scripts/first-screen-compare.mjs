// Compares builds of the frontend on the first screen's cold loads (as
// scripts/first-screen.mjs measures them: slow 4G at 360 px), one gateway per
// build, their loads alternating so that the machine's load falls on each
// alike: compare the rows of one run with each other.
//
//   FRONTENDS="before=/tmp/dist-before,after=dist" RUNS=9 node scripts/first-screen-compare.mjs
//
// Prints, per page and build, the medians of first contentful paint, the
// parser's end (`domInteractive`), LCP, the first card with its picture and
// CLS, and every load's first paint.
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { launch } from '../e2e/support/browser.mjs';
import { measureColdLoad, slow4g } from '../e2e/support/firstScreen.mjs';
import { startShop } from '../e2e/support/shop.mjs';

const runs = Number(process.env.RUNS ?? 7);
const paths = ['/', '/store'];
const frontends = (process.env.FRONTENDS ?? '')
  .split(',')
  .filter(Boolean)
  .map((pair) => {
    const [label, dir] = pair.split('=');
    return { label, dir: path.resolve(dir) };
  });
if (frontends.length < 2) throw new Error('FRONTENDS must name two builds or more: label=dir,label=dir');

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;

const shops = [];
const browser = await launch();
try {
  for (const frontend of frontends) shops.push(await startShop({ frontendDir: frontend.dir }));
  console.log(`${runs} cold loads per page and build, alternating; slow 4G (CPU ${slow4g.cpuSlowdown}x slower) at 360 px`);
  console.log(`load average before: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} CPUs; ${new Date().toISOString()}`);
  const loads = new Map();
  for (let run = 0; run < runs; run += 1) {
    for (const pagePath of paths) {
      for (const [index, frontend] of frontends.entries()) {
        const key = `${pagePath} ${frontend.label}`;
        if (!loads.has(key)) loads.set(key, []);
        loads.get(key).push(await measureColdLoad(browser, shops[index].url, pagePath, slow4g, { trace: true }));
      }
    }
  }
  console.log(`load average after: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log('page     build            FCP      parsed   LCP      card     CLS    (every FCP)');
  for (const [key, list] of loads) {
    const [pagePath, label] = key.split(' ');
    const m = (field) => median(list.map((load) => load[field]));
    console.log(
      `${pagePath.padEnd(8)} ${label.padEnd(16)} ${s(m('fcp')).padEnd(8)} ${s(m('domInteractive')).padEnd(8)} ${s(m('lcp')).padEnd(8)} ` +
        `${s(m('firstCard')).padEnd(8)} ${m('cls').toFixed(3).padEnd(6)} (${list.map((load) => (load.fcp / 1000).toFixed(2)).join(' ')})`,
    );
    const kinds = [...new Set(list.flatMap((load) => Object.keys(load.beforePaint ?? {})))];
    console.log(
      `${''.padEnd(26)}main thread before the first paint, CPU ms: ` +
        kinds.map((kind) => `${kind} ${median(list.map((load) => load.beforePaint?.[kind] ?? 0)).toFixed(0)}`).join(', ') +
        `; the entry ran before it in ${list.filter((load) => load.beforePaint?.entry).length} of ${list.length}`,
    );
  }
} finally {
  await browser.close();
  for (const shop of shops) await shop.stop();
}
