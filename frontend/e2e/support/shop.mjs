// The shop for browser tests: `target/debug/gateway serve` with the shop's
// settings (config/shop.args: demo data, one staff user, no public sign-up) on a
// fresh private PostgreSQL cluster in a temporary folder, serving a built
// frontend on an ephemeral port.
//
//   const shop = await startShop();               // frontend/dist
//   const shop = await startShop({ frontendDir }); // another build
//   shop.url, shop.anonKey, shop.publishableKey, shop.serviceRoleKey,
//   shop.secretKey, shop.staff.{email,password}, shop.dataDir, shop.databaseUrl
//   await shop.sql('select count(*) from products')   // [{ count: 50 }]
//   await shop.createUser({ email, password })        // a user with no profile
//   await shop.stop()
//
// `sql()` speaks to the cluster as its superuser over the Unix socket that the
// gateway's banner names (`database:`), with the `pg` package. That works as
// root (CI), whose cluster runs as the `postgres` user in that user's home, and
// as a normal user, whose cluster is their own: the socket's folder is open to
// the cluster's owner and to root only, and the cluster trusts local
// connections.
//
// Nothing outlives the test process: a watchdog started with the gateway stops
// it (and its cluster) and removes the folders when this process ends, however
// it ends.

import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

import pg from 'pg';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** How long a first start may take: initdb, migrations, the seed and bcrypt on a busy 2-core machine. */
const START_TIMEOUT_MS = 180_000;
const STOP_TIMEOUT_MS = 60_000;

// The gateway reads its settings from the environment too; the shop under test
// gets only the ones given here.
const SETTINGS = /^(DATABASE_|JWT_|GATEWAY_|STORAGE_|AUTH_|SHOP_|SITE_URL$)/;

/**
 * Starts the shop. Options: `frontendDir` (default `<repo>/frontend/dist`),
 * `args` (more `gateway serve` flags, e.g. `['--shop-contact-phone', '...']`),
 * `env` (more environment variables).
 */
export async function startShop({ frontendDir, args = [], env = {} } = {}) {
  const binary = process.env.GATEWAY_BIN ?? path.join(repoRoot, 'target/debug/gateway');
  if (!existsSync(binary)) {
    throw new Error(`${binary} is missing: build it with \`cargo build -p gateway\` in ${repoRoot}`);
  }
  const dist = frontendDir ?? path.join(repoRoot, 'frontend/dist');
  if (frontendDir === undefined && !existsSync(path.join(dist, 'index.html'))) {
    throw new Error(`${dist}/index.html is missing: run \`npm run build\` in frontend/ first`);
  }
  const shopArgs = readFileSync(path.join(repoRoot, 'config/shop.args'), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
  const work = mkdtempSync(path.join(tmpdir(), 'shop-e2e-'));
  const dataDir = path.join(work, '.data');
  const logPath = path.join(work, 'gateway.log');
  const logFd = openSync(logPath, 'w');
  const childEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => !SETTINGS.test(name)));
  const child = spawn(
    binary,
    [
      'serve',
      ...shopArgs,
      '--data-dir',
      dataDir,
      '--sql-root',
      repoRoot,
      '--listen',
      '127.0.0.1:0',
      '--frontend-dir',
      dist,
      ...args,
    ],
    {
      cwd: work,
      env: { RUST_LOG: 'info,tower_http=warn,tokio_postgres=warn', ...childEnv, ...env },
      stdio: ['ignore', 'pipe', logFd],
    },
  );
  closeSync(logFd);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const watchdog = spawnWatchdog(child.pid, work);
  // A test process that ends without stop() (a failed assertion, an uncaught
  // error) still stops the gateway; the watchdog waits for it and cleans up.
  const onExit = () => child.kill('SIGINT');
  process.once('exit', onExit);

  const cleanUp = async () => {
    process.removeListener('exit', onExit);
    watchdog.kill('SIGKILL');
    await stopProcess(child, exited);
    await stopLeftoverCluster(dataDir);
    removeData(work);
  };

  let banner;
  try {
    banner = await readBanner(child, exited, shopArgs.includes('--seed'), logPath);
  } catch (error) {
    await cleanUp();
    throw error;
  }

  let pool;
  const database = () => {
    if (!pool) {
      if (!banner.has('database'))
        throw new Error('the gateway printed no `database:` line: is it an old build?');
      const url = new URL(banner.get('database'));
      pool = new pg.Pool({
        host: url.searchParams.get('host'),
        port: Number(url.searchParams.get('port') ?? 5432),
        user: url.searchParams.get('user'),
        database: decodeURIComponent(url.pathname.slice(1)),
        max: 2,
        types: { getTypeParser: typeParser },
      });
      // An idle connection that breaks (the gateway stopping PostgreSQL) must
      // not take the test process down.
      pool.on('error', () => {});
    }
    return pool;
  };

  let stopped = false;
  return {
    url: banner.get('API URL'),
    anonKey: banner.get('anon key'),
    publishableKey: banner.get('publishable key'),
    secretKey: banner.get('secret key'),
    serviceRoleKey: banner.get('service_role key'),
    staff: { email: banner.get('staff e-mail'), password: banner.get('staff password') },
    dataDir,
    /** The database's URL as the superuser (the banner's `database:`), for `gateway` commands. */
    databaseUrl: banner.get('database'),

    /** The gateway's log so far (its stderr). */
    log: () => readFileSync(logPath, 'utf8'),

    /**
     * Runs SQL as the superuser, bypassing row-level security, and returns the
     * rows. `params` fill `$1`, `$2`... With several statements (and no
     * params) the last one's rows come back. bigint and numeric come back as
     * numbers, so counts compare with what the page shows.
     */
    async sql(text, params) {
      const result = await database().query(text, params);
      return (Array.isArray(result) ? result.at(-1) : result).rows;
    },

    /**
     * Creates a confirmed user through the auth admin API (as
     * `supabase.auth.admin.createUser` does). The user has no profile, so no
     * company, until one is inserted.
     */
    async createUser({ email, password, name }) {
      const response = await fetch(`${banner.get('API URL')}/auth/v1/admin/users`, {
        method: 'POST',
        headers: {
          apikey: banner.get('service_role key'),
          authorization: `Bearer ${banner.get('service_role key')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ email, password, email_confirm: true, user_metadata: name ? { name } : {} }),
      });
      const body = await response.json();
      if (!response.ok)
        throw new Error(`creating ${email} failed: ${response.status} ${JSON.stringify(body)}`);
      return body;
    },

    /** Ctrl-C for the gateway (which stops PostgreSQL), then removes every folder. */
    async stop() {
      if (stopped) return;
      stopped = true;
      await pool?.end();
      await cleanUp();
    },
  };
}

/** int8 (20) and numeric (1700) as numbers; everything else as pg parses it. */
function typeParser(oid, format) {
  if (oid === 20 || oid === 1700) return (value) => (value === null ? null : Number(value));
  return pg.types.getTypeParser(oid, format);
}

/** The banner's `label: value` lines, once the last one expected is printed. */
function readBanner(child, exited, seeded, logPath) {
  const last = seeded ? 'staff password' : 'service_role key';
  const values = new Map();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => fail(`the gateway did not start within ${START_TIMEOUT_MS / 1000} s`),
      START_TIMEOUT_MS,
    );
    const lines = createInterface({ input: child.stdout });
    function fail(message) {
      clearTimeout(timer);
      lines.close();
      let log = '';
      try {
        log = readFileSync(logPath, 'utf8');
      } catch {
        // The folder may be gone already.
      }
      reject(new Error(`${message}\n--- gateway log ---\n${log}`));
    }
    lines.on('line', (line) => {
      const match = /^\s+([^:]+):\s+(\S+)\s*$/.exec(line);
      if (!match) return;
      values.set(match[1], match[2]);
      if (match[1] === last) {
        clearTimeout(timer);
        // Keep reading so the gateway never blocks on a full pipe.
        child.stdout.resume();
        resolve(values);
      }
    });
    exited.then(({ code, signal }) => {
      if (!values.has(last)) fail(`the gateway exited early (${signal ?? `code ${code}`})`);
    });
  });
}

async function stopProcess(child, exited) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGINT');
  let timer;
  const timeout = new Promise((resolve) => {
    timer = setTimeout(resolve, STOP_TIMEOUT_MS, 'timeout');
  });
  const outcome = await Promise.race([exited, timeout]);
  clearTimeout(timer);
  if (outcome === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}

/** The cluster's real folder: `.data/postgres` links to it when it was relocated (as root). */
function pgdataOf(dataDir) {
  const link = path.join(dataDir, 'postgres');
  try {
    return path.resolve(dataDir, readlinkSync(link));
  } catch {
    return link;
  }
}

/** A gateway that had to be killed leaves its PostgreSQL running: stop it at once. */
async function stopLeftoverCluster(dataDir) {
  let pid;
  try {
    pid = Number(readFileSync(path.join(pgdataOf(dataDir), 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return;
  }
  if (!pid || !existsSync(`/proc/${pid}`)) return;
  try {
    // SIGQUIT is PostgreSQL's immediate shutdown; root may signal the postgres user's server.
    process.kill(pid, 'SIGQUIT');
  } catch {
    return;
  }
  for (let waited = 0; existsSync(`/proc/${pid}`) && waited < STOP_TIMEOUT_MS; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The temporary folder, and the relocated cluster it links to. */
function removeData(work) {
  const dataDir = path.join(work, '.data');
  const pgdata = pgdataOf(dataDir);
  if (pgdata !== path.join(dataDir, 'postgres')) rmSync(pgdata, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
}

/**
 * A shell in its own process group that outlives this process: when it is
 * gone, it interrupts the gateway, stops a PostgreSQL left behind and removes
 * the folders. stop() kills it first.
 */
function spawnWatchdog(gatewayPid, work) {
  const script = `
    node=$1 gateway=$2 work=$3
    while [ -d "/proc/$node" ]; do sleep 0.5; done
    kill -INT "$gateway" 2>/dev/null
    i=0
    while [ -d "/proc/$gateway" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
    kill -KILL "$gateway" 2>/dev/null
    link=$(readlink "$work/.data/postgres" 2>/dev/null)
    pgdata=\${link:-$work/.data/postgres}
    pid=$(head -n 1 "$pgdata/postmaster.pid" 2>/dev/null)
    if [ -n "$pid" ] && kill -QUIT "$pid" 2>/dev/null; then
      while [ -d "/proc/$pid" ]; do sleep 0.2; done
    fi
    [ -n "$link" ] && rm -rf "$link"
    rm -rf "$work"
  `;
  const watchdog = spawn('sh', ['-c', script, 'watchdog', String(process.pid), String(gatewayPid), work], {
    detached: true,
    stdio: 'ignore',
  });
  watchdog.unref();
  return watchdog;
}
