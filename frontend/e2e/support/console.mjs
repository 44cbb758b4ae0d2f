// What the operator console's browser tests share: an operator made the way
// an operator makes one, and the screenshots the book shows.
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from './shop.mjs';

/** Where the console's screenshots go, for the README and the book. */
export const screenshotsDir = path.join(repoRoot, 'docs/public');

/** `gateway operators add` against `shop`'s database, as an operator would run it. */
export async function addOperator(shop, email, password) {
  const binary = process.env.GATEWAY_BIN ?? path.join(repoRoot, 'target/debug/gateway');
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(DATABASE_|JWT_|GATEWAY_)/.test(name)),
  );
  await promisify(execFile)(
    binary,
    ['operators', 'add', '--email', email, '--data-dir', shop.dataDir, '--sql-root', repoRoot],
    {
      env: {
        ...env,
        DATABASE_URL: shop.databaseUrl,
        DATABASE_ADMIN_URL: shop.databaseUrl,
        GATEWAY_OPERATOR_PASSWORD: password,
      },
    },
  );
}

/** `page` saved as `docs/public/<name>.png`. */
export async function bookScreenshot(page, name, { fullPage = false } = {}) {
  mkdirSync(screenshotsDir, { recursive: true });
  await page.screenshot({ path: path.join(screenshotsDir, `${name}.png`), fullPage });
}
