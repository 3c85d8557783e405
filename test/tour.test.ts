import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTour, TOUR_FILE, tourSteps } from '../scripts/tour.ts';

// `npm run tour` itself (a started server, every step of docs/tour.md) runs in .ci/run; here: that the
// tour parses into steps, that the README sends newcomers to it, and that the runner fails on each kind of
// broken step.
const run = promisify(execFile);
const TOUR = readFileSync(TOUR_FILE, 'utf8');

let server: Server;
let base: string;

beforeAll(async () => {
  // Answers /status/NNN with NNN and {"data":{"ok":true}}; anything else 404.
  server = createServer((request, response) => {
    const status = Number(/^\/status\/(\d{3})$/.exec(request.url ?? '')?.[1] ?? 404);
    response.writeHead(status, { 'content-type': 'application/json' }).end('{"data":{"ok":true}}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

async function tour(markdown: string): Promise<{ status: number; out: string; err: string }> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const env = { PATH: process.env.PATH ?? '', BASE: base };
  const status = await runTour(tourSteps(markdown), env, { stdout, stderr });
  return { status, out, err };
}

const tourFile = (block: string) => `# x\n\nSome text.\n\n\`\`\`bash\n${block}\n\`\`\`\n\n## Next\n`;

describe('the tour (docs/tour.md)', () => {
  it('is bash blocks of steps with no placeholder and no fixed date, announcing its 4xx answers', () => {
    const steps = tourSteps(TOUR);
    expect(steps.length).toBeGreaterThanOrEqual(20);
    for (const step of steps) {
      const commands = step.script
        .split('\n')
        .filter((line) => !line.trimStart().startsWith('#'))
        .join('\n');
      expect(commands, step.title).not.toMatch(/<[a-z][a-z ]*>/i);
      expect(commands, step.title).not.toMatch(/\b20\d\d-\d\d-\d\d\b/);
      expect(commands, step.title).not.toMatch(/service_[ps]k_|adm_/);
    }
    expect(steps.flatMap((step) => step.expected).sort()).toEqual([400, 403, 403, 409, 409, 409]);
  });

  it('is where the README sends a newcomer, after a first taste taken from it', () => {
    const readme = readFileSync('README.md', 'utf8');
    expect(readme).toContain('(docs/tour.md)');
    // The README's curl lines are not run on their own: each is a line of the tour, which is.
    const curls = tourSteps(readme)
      .flatMap((step) => step.script.split('\n'))
      .filter((line) => line.startsWith('curl '));
    expect(curls.length).toBeGreaterThan(0);
    for (const line of curls) expect(TOUR.split('\n'), line).toContain(line);
  });

  it('is every bash block of the file, in order', () => {
    const blocks = tourSteps(`${tourFile('true')}\n\`\`\`bash\n# Two.\ntrue\n\`\`\`\n`);
    expect(blocks.map((step) => step.title)).toEqual(['true', 'Two.']);
  });
});

describe('the tour runner', () => {
  it('passes steps whose answers are 2xx or announced, printing each step', async () => {
    const result = await tour(
      tourFile(
        `# A read.\ncurl -s $BASE/status/200 | jq -e .data.ok\n\n# This one answers 404.\ncurl -s $BASE/nowhere`,
      ),
    );
    expect(result.status, result.err).toBe(0);
    expect(result.out).toContain('==> [1/2] A read.');
    expect(result.out).toContain('==> [2/2] This one answers 404.');
    expect(result.out).toContain('tour: all 2 steps passed');
  });

  it('fails on a status the step does not announce', async () => {
    const result = await tour(tourFile(`# A read.\ncurl -s $BASE/status/500\n\n# Never reached.\ntrue`));
    expect(result.status).toBe(1);
    expect(result.err).toMatch(/step 1: unexpected 500 from .*\/status\/500/);
    expect(result.out).not.toContain('Never reached');
  });

  it('fails when an announced status never comes', async () => {
    const result = await tour(tourFile(`# This answers 403.\ncurl -s $BASE/status/200`));
    expect(result.status).toBe(1);
    expect(result.err).toMatch(/step 1: announced 403 never came/);
  });

  it('fails on a missing field (jq -e) and on a server that does not answer', async () => {
    const missing = await tour(tourFile(`# A field.\ncurl -s $BASE/status/200 | jq -e .data.missing`));
    expect(missing.status).not.toBe(0);
    expect(missing.err).toMatch(/step 1 failed/);
    const refused = await tour(tourFile(`# Nobody there.\ncurl -s http://127.0.0.1:1/`));
    expect(refused.status).not.toBe(0);
    expect(refused.err).toMatch(/step 1 failed/);
  });

  it('npm run tour exits non-zero when a step of the tour fails (here: a server that is not there)', async () => {
    const env = { PATH: process.env.PATH ?? '', BASE: 'http://127.0.0.1:1', ADMIN: 'x', SK: 'x', PK: 'x' };
    const failure = await run(process.execPath, ['--import', 'tsx', 'scripts/tour.ts'], { env }).then(
      () => null,
      (error: { code: number; stderr: string }) => error,
    );
    // bash's own status: curl's 7 (could not connect), through `set -e` to the script's exit code.
    expect(failure?.code).toBe(7);
    expect(failure?.stderr).toMatch(/tour: step 2 failed/);
  });
});
