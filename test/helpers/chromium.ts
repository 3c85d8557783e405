import { accessSync, constants } from 'node:fs';

type Env = Record<string, string | undefined>;

/**
 * Where the browser tests find Chromium: Debian's package (DESIGN.md: no browser download), or
 * CHROMIUM_PATH. Kept free of playwright so vitest.config.ts can ask before any test file loads.
 */
export function chromiumPath(env: Env = process.env): string {
  return env.CHROMIUM_PATH || '/usr/bin/chromium';
}

export const CHROMIUM_INSTALL_HINT =
  'install it with `apt-get install -y chromium` (Debian/Ubuntu) or set CHROMIUM_PATH to a Chromium binary';

/** True when the Chromium path names an executable file. */
export function chromiumInstalled(env: Env = process.env): boolean {
  try {
    accessSync(chromiumPath(env), constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The browser test files are left out when Chromium is missing, with a notice, so `npm test` passes on
 * a fresh machine after `npm install` alone; under CI=true they stay in and a missing browser fails
 * (docs/decisions/0172-browser-tests-without-chromium.md).
 */
export function browserTestsSkipped(env: Env = process.env): boolean {
  return env.CI !== 'true' && !chromiumInstalled(env);
}
