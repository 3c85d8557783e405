import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess } from './helpers/server-process.ts';

const run = promisify(execFile);
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(() => {
  for (const child of children) child.kill('SIGTERM');
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Starts `src/server.ts` as `npm start` does, and resolves with its stdout once it printed the banner. */
const start = (env: Record<string, string>, until: RegExp) => startServerProcess(env, until, children);

// `npm start` on the embedded database whatever the leg: the PostgreSQL legs would only repeat the
// PGlite leg's run (this file never reads TEST_DATABASE_URL), at ~35 s of a fork each.
describe.skipIf(process.env.TEST_DATABASE_URL)('npm start on the embedded database', () => {
  it('seeds the demo agency on an empty database, prints its keys, and the printed /v1/me curl answers 200', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'agency-start-'));
    dirs.push(dir);
    const { child, output } = await start({ DATA_DIR: join(dir, 'data') }, /Try it:[\s\S]*Bearer/);
    const text = output();
    expect(text).toMatch(/publishable key: service_pk_live_/);
    expect(text).toMatch(/secret key: +service_sk_live_/);
    expect(text).toMatch(/admin token \(generated for this run\): adm_/);
    const curl = text
      .split('\n')
      .find((line) => line.includes('/v1/me'))
      ?.trim() as string;
    expect(curl).toMatch(/^curl -s http:\/\/127\.0\.0\.1:\d+\/v1\/me -H 'X-API-Key: service_sk_live_\w+'$/);
    const { stdout } = await run('bash', ['-c', `${curl} -w '\\n%{http_code}'`]);
    const [body, status] = stdout.trim().split('\n');
    expect(status, stdout).toBe('200');
    expect(JSON.parse(body as string).data.organization.name).toBe('Demo Realty');

    // The README tour's first line, and its webhook step: a local receiver without a restart.
    const exported =
      /^ {2}export (BASE=\S+ ADMIN=adm_\S+ SK=service_sk_live_\w+ PK=service_pk_live_\w+)$/m.exec(text);
    expect(exported, text).not.toBeNull();
    expect(text).toMatch(/webhooks: local and private receiver URLs allowed/);
    const tourEnv = Object.fromEntries(
      (exported?.[1] ?? '').split(' ').map((pair) => [pair.split('=')[0], pair.slice(pair.indexOf('=') + 1)]),
    );
    const { stdout: hook } = await run(
      'bash',
      [
        '-c',
        `curl -s "$BASE/v1/webhooks" -H "X-API-Key: $SK" -H 'Content-Type: application/json' ` +
          `-d '{"url":"http://127.0.0.1:9/hook","eventTypes":["deal.won"]}' -w '\n%{http_code}'`,
      ],
      { env: { PATH: process.env.PATH ?? '', ...tourEnv } },
    );
    expect(hook.trim().split('\n').at(-1), hook).toBe('201');
    // SECRETS_KEY unset on the embedded default: generated once beside the database, owner-only.
    expect(statSync(join(dir, 'data', 'secrets.key')).mode & 0o777).toBe(0o600);
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));

    // A restart on the same directory keeps the data and does not seed again; an explicit
    // WEBHOOK_ALLOW_PRIVATE_URLS=false is honoured on the embedded database too.
    const again = await start(
      { DATA_DIR: join(dir, 'data'), WEBHOOK_ALLOW_PRIVATE_URLS: 'false' },
      /listening on[\s\S]*(seed demo|Try it)/,
    );
    expect(again.output()).toMatch(/already has organizations/);
    expect(again.output()).not.toMatch(/private receiver URLs allowed/);
    again.child.kill('SIGTERM');
    // Two starts of a real process on an on-disk PGlite, one of them seeding the demo agency: ~10 s on
    // a quiet machine, over a minute when the 2 cores are shared with other test processes.
  }, 240_000);

  it('refuses a malformed SECRETS_KEY without printing it', async () => {
    const error = await start({ SECRETS_KEY: 'not-a-real-key-value' }, /never/).catch(
      (caught: Error) => caught,
    );
    expect((error as Error).message).toMatch(/Invalid configuration: SECRETS_KEY must be 32 bytes/);
    expect((error as Error).message).not.toContain('not-a-real-key-value');
  });

  it('refuses a bad variable with a message naming it', async () => {
    await expect(start({ PORT: 'eighty' }, /never/)).rejects.toThrow(
      /Invalid configuration: PORT must be a whole number/,
    );
  });
});
