/**
 * Running the operator CLI in tests. `cli` runs its `main` in this process, as the launcher does,
 * with the output captured and an env built from scratch (an ADMIN_TOKEN or AGENCY_CRM_URL in the
 * developer's shell cannot leak into a test): the CLI is a thin HTTP client of the admin API, so the
 * requests are real. `cliProcess` runs the real launcher (bin/agency-crm.mjs) in a child process, for
 * the tests of what only a process shows (exit codes, the streams); each costs a Node start.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { ADMIN_TOKEN } from '../helpers/test-app.ts';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

function envOf(baseUrl: string, env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', ADMIN_TOKEN, AGENCY_CRM_URL: baseUrl, ...env };
}

/** The CLI's `main` against `baseUrl`, in this process. */
export async function cli(
  baseUrl: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await main(args, envOf(baseUrl, env), {
    stdout: (text) => void (stdout += text),
    stderr: (text) => void (stderr += text),
  });
  return { code, stdout, stderr };
}

/** The real launcher in a child process. */
export function cliProcess(
  baseUrl: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['bin/agency-crm.mjs', ...args],
      { cwd: REPO_ROOT, env: envOf(baseUrl, env), timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Exit code check whose failure message shows what the CLI printed. */
export function expectExit(run: CliRun, code: number): CliRun {
  expect(run.code, `exit ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`).toBe(code);
  return run;
}
