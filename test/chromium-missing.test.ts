import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { browserTestsSkipped, chromiumPath } from './helpers/chromium.ts';

// docs/decisions/0172-browser-tests-without-chromium.md
const run = promisify(execFile);

describe('browser tests on a machine without Chromium', () => {
  it('are skipped outside CI and kept (so they fail) under CI=true', () => {
    expect(chromiumPath({})).toBe('/usr/bin/chromium');
    const missing = { CHROMIUM_PATH: '/nonexistent/chromium' };
    expect(browserTestsSkipped(missing)).toBe(true);
    expect(browserTestsSkipped({ ...missing, CI: 'true' })).toBe(false);
    // Any executable stands in for an installed browser here.
    expect(browserTestsSkipped({ CHROMIUM_PATH: process.execPath })).toBe(false);
  });

  it('vitest says so and how to run them, and passes', async () => {
    // A clean environment: a vitest started from inside a vitest worker must not think it is one.
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      CHROMIUM_PATH: '/nonexistent/chromium',
    };
    const { stdout, stderr } = await run('npx', ['--no', 'vitest', 'run', 'test/browser/'], { env });
    const output = stdout + stderr;
    expect(output).toMatch(
      /NOTICE: browser tests skipped \(test\/browser\/\*\.test\.ts\): no Chromium at \/nonexistent\/chromium/,
    );
    expect(output).toMatch(/apt-get install -y chromium/);
    expect(output).toMatch(/No test files found, exiting with code 0/);
  }, 60_000);
});
