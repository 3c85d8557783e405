/**
 * `npm run tour`: runs docs/tour.md, "A five-minute tour", as a newcomer would paste it, so the tour and
 * the service cannot drift apart (docs/decisions/0170-the-readme-tour-is-run.md).
 *
 * The tour is every bash block of docs/tour.md, in order; each paragraph of a block (lines up to a blank
 * line) is one step. All steps run in one bash process with
 * `set -euo pipefail`, so a failing command or a `jq -e` that finds no field stops the tour. Every
 * `curl` records the status it got: a step passes when each answer is 2xx or a status its comment
 * announces as "answers NNN", and each announced status came at least once.
 *
 *   npm run tour                          starts `src/server.ts` (as `npm start` does) on a free port
 *                                         with a temporary DATA_DIR, and takes the banner's export line
 *   BASE=… ADMIN=… SK=… PK=… npm run tour  runs against a server already started (the banner's line)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

export interface TourStep {
  /** The step's first comment line, or its first command. */
  title: string;
  /** The lines as written in docs/tour.md. */
  script: string;
  /** Non-2xx statuses the step's comments announce ("answers 403"): allowed, and each must come. */
  expected: number[];
}

/** The tour a newcomer pastes, and `npm run tour` runs: every bash block of it. */
export const TOUR_FILE = 'docs/tour.md';
/** Longest output line printed; the rest is summarized (listings are long JSON lines). */
const MAX_LINE = 240;

/** The steps of the tour: every bash block of the document, cut at blank lines. */
export function tourSteps(markdown: string): TourStep[] {
  const blocks = [...markdown.matchAll(/^```bash\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
  if (blocks.length === 0) throw new Error(`${TOUR_FILE} has no bash block`);
  return blocks.flatMap((block) =>
    block
      .split(/\n[ \t]*\n/)
      .map((paragraph) => paragraph.replace(/\s+$/, ''))
      .filter((paragraph) => paragraph.trim() !== '')
      .map((script) => {
        const lines = script.split('\n');
        const comments = lines.filter((line) => line.trimStart().startsWith('#')).join('\n');
        const title = (lines[0] ?? '').replace(/^#\s*/, '').trim();
        const expected = [...comments.matchAll(/\banswers? (\d{3})\b/g)].map((match) => Number(match[1]));
        return { title, script, expected: [...new Set(expected)].filter((status) => status >= 300) };
      }),
  );
}

const quote = (text: string) => `'${text.replaceAll("'", `'\\''`)}'`;

/** One bash program: a recording `curl`, then every step between a start marker and a status check. */
export function tourProgram(steps: TourStep[]): string {
  const prelude = String.raw`set -euo pipefail
TOUR_DIR=$(mktemp -d)
TOUR_STEP=0
TOUR_TITLE=""
# Background jobs a step started (the webhook receiver) end with the tour.
trap 'status=$?; jobs -p | xargs -r kill 2>/dev/null; rm -rf "$TOUR_DIR"; exit $status' EXIT
trap 'echo "tour: step $TOUR_STEP failed (exit status $?): $TOUR_TITLE" >&2' ERR
# Every request records its final status and URL; -D leaves the command's own output as it is.
curl() {
  local headers rc=0 status url=""
  headers=$(mktemp "$TOUR_DIR/headers.XXXXXX")
  command curl -D "$headers" "$@" || rc=$?
  status=$(awk 'toupper($1) ~ /^HTTP\// { s = $2 } END { print s }' "$headers")
  [[ -n "$status" ]] || status=000
  for arg in "$@"; do [[ "$arg" == http* ]] && url="$arg"; done
  echo "$status $url" >>"$TOUR_DIR/statuses"
  rm -f "$headers"
  return $rc
}
tour_step() {
  TOUR_STEP=$1
  TOUR_TITLE=$3
  : >"$TOUR_DIR/statuses"
  printf '\n==> [%s/%s] %s\n' "$1" "$2" "$3"
}
# Fails the step on a status that is neither 2xx nor announced, or an announced status that never came.
tour_check() {
  local expected=" $* " status url seen=" " failed=0
  while read -r status url; do
    seen+="$status "
    if [[ "$status" != 2?? && "$expected" != *" $status "* ]]; then
      echo "tour: step $TOUR_STEP: unexpected $status from $url" >&2
      failed=1
    fi
  done <"$TOUR_DIR/statuses"
  for status in $*; do
    if [[ "$seen" != *" $status "* ]]; then
      echo "tour: step $TOUR_STEP: announced $status never came (got:$seen)" >&2
      failed=1
    fi
  done
  if ((failed)); then
    echo "tour: step $TOUR_STEP failed: $TOUR_TITLE" >&2
    exit 1
  fi
}
`;
  const body = steps.map((step, index) =>
    [
      `tour_step ${index + 1} ${steps.length} ${quote(step.title)}`,
      step.script,
      `tour_check ${step.expected.join(' ')}`,
    ].join('\n'),
  );
  return `${prelude}\n${body.join('\n\n')}\n\necho\necho "tour: all ${steps.length} steps passed"\n`;
}

function printLines(stream: NodeJS.ReadableStream, out: NodeJS.WritableStream): Promise<void> {
  const lines = createInterface({ input: stream, crlfDelay: Infinity });
  lines.on('line', (line) => {
    const extra = line.length - MAX_LINE;
    out.write(extra > 0 ? `${line.slice(0, MAX_LINE)}… (${extra} more characters)\n` : `${line}\n`);
  });
  return new Promise((resolve) => lines.once('close', resolve));
}

/** Runs the steps with bash, printing what they print; resolves with bash's exit status. */
export async function runTour(
  steps: TourStep[],
  env: Record<string, string>,
  output: { stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream } = process,
): Promise<number> {
  const bash = spawn('bash', ['-c', tourProgram(steps)], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const printed = Promise.all([
    printLines(bash.stdout, output.stdout),
    printLines(bash.stderr, output.stderr),
  ]);
  const status = await new Promise<number>((resolve) =>
    bash.once('close', (code, signal) => resolve(code ?? (signal ? 128 : 1))),
  );
  await printed;
  return status;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject()));
    });
  });
}

/** Starts the service as `npm start` does on a fresh DATA_DIR; resolves with the banner's variables. */
async function startServer(dataDir: string): Promise<{ child: ChildProcess; vars: Record<string, string> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the server did not start in 3 minutes:\n${output}`)),
      180_000,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const line = /^ *export (BASE=.*)$/m.exec(output)?.[1];
      if (!line) return;
      clearTimeout(timer);
      process.stdout.write(output);
      const vars = Object.fromEntries(
        line
          .split(/\s+/)
          .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
      );
      resolve({ child, vars });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code} before printing the tour's variables:\n${output}`));
    });
  });
}

async function main(): Promise<number> {
  const steps = tourSteps(readFileSync(TOUR_FILE, 'utf8'));
  const env: Record<string, string> = Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  env.HOOK_PORT ??= String(await freePort());
  if (env.BASE) {
    const missing = ['ADMIN', 'SK', 'PK'].filter((name) => !env[name]);
    if (missing.length > 0) {
      console.error(`tour: BASE is set, so ${missing.join(', ')} must be too (the line npm start printed)`);
      return 2;
    }
    console.log(`tour: ${steps.length} steps against ${env.BASE}`);
    return runTour(steps, env);
  }
  const dir = mkdtempSync(join(tmpdir(), 'agency-tour-'));
  let child: ChildProcess | undefined;
  try {
    const server = await startServer(join(dir, 'data'));
    child = server.child;
    console.log(`tour: ${steps.length} steps against a fresh server (DATA_DIR ${dir}/data)`);
    return await runTour(steps, { ...env, ...server.vars });
  } finally {
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child?.once('exit', resolve));
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.exitCode = await main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    return 1;
  });
}
