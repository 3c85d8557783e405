/**
 * `agency-crm`: the operator's command line, a thin client of the admin API (DESIGN.md
 * "Operator interface"). This file parses arguments, prints help and maps outcomes to exit codes;
 * each command lives in its own file and only builds a request and a summary.
 *
 * Exit codes: 0 success, 1 the API refused or could not be reached (or, for an import, some rows
 * failed or the file could not be read), 2 usage error.
 * The server is the authority on values (plans, scopes, ranges): the CLI only converts flag
 * strings to JSON types, so its rules can never drift from the API's.
 */
import { parseArgs } from 'node:util';
import { AdminApiError, ConnectionError, createAdminClient, type AdminClient } from './admin-client.ts';
import { CommandFailure, UsageError } from './cli-errors.ts';
import { consoleLink } from './console-link.ts';
import { importProperties } from './import-properties.ts';
import { keyCreate } from './key-create.ts';
import { keyRevoke } from './key-revoke.ts';
import { keyRoll } from './key-roll.ts';
import { orgCreate } from './org-create.ts';
import { seedDemo } from './seed-demo.ts';
import type { CliCommand } from './command.ts';

export type { CliCommand, CommandResult, FlagKind, FlagSpec, FlagSpecs, Flags } from './command.ts';

export type Env = Readonly<Record<string, string | undefined>>;

export interface CliOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

const COMMANDS: readonly CliCommand[] = [
  orgCreate,
  keyCreate,
  keyRevoke,
  consoleLink,
  keyRoll,
  seedDemo,
  importProperties,
];

const DEFAULT_URL = 'http://127.0.0.1:3000';

const GLOBAL_OPTIONS = {
  url: { type: 'string' },
  token: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const GLOBAL_HELP = [
  `  --url URL        admin API base URL (env AGENCY_CRM_URL, default ${DEFAULT_URL})`,
  '  --token TOKEN    admin token (env ADMIN_TOKEN; prefer the env: flags show in the process list)',
  "  --json           print exactly the API's data object as JSON",
  '  -h, --help       show help',
];

function table(rows: [string, string][]): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 2;
  return rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`);
}

function topHelp(): string {
  const rows = COMMANDS.map((c): [string, string] => [c.name, c.summary]);
  return [
    'agency-crm: operator CLI for the agency-crm admin API',
    '',
    'Usage: agency-crm <command> [options]',
    '',
    'Commands:',
    ...table(rows),
    '',
    'Global options:',
    ...GLOBAL_HELP,
    '',
    'Run `agency-crm <command> --help` for the options of a command.',
    '',
  ].join('\n');
}

function usageLine(command: CliCommand): string {
  const parts = [`agency-crm ${command.name}`, ...(command.positionals ?? [])];
  for (const [flag, spec] of Object.entries(command.flags)) {
    if (spec.required) parts.push(`--${flag}${spec.kind === 'boolean' ? '' : ` ${spec.placeholder}`}`);
  }
  if (Object.values(command.flags).some((spec) => !spec.required)) parts.push('[options]');
  return `Usage: ${parts.join(' ')}`;
}

function commandHelp(command: CliCommand): string {
  const rows = Object.entries(command.flags).map(([flag, spec]): [string, string] => [
    spec.kind === 'boolean' ? `--${flag}` : `--${flag} ${spec.placeholder}`,
    spec.required ? `${spec.description} (required)` : spec.description,
  ]);
  return [
    usageLine(command),
    '',
    `${command.summary}.`,
    ...(command.notes ? ['', command.notes] : []),
    ...(rows.length > 0 ? ['', 'Options:', ...table(rows)] : []),
    '',
    'Global options:',
    ...GLOBAL_HELP,
    '',
  ].join('\n');
}

function groupHelp(group: string): string {
  const commands = COMMANDS.filter((c) => c.name.startsWith(`${group} `));
  return [
    `Usage: agency-crm ${group} <command> [options]`,
    '',
    'Commands:',
    ...table(commands.map((c): [string, string] => [c.name, c.summary])),
    '',
  ].join('\n');
}

/** Every flag of every command as a string option: enough to find the command words in any order. */
function allOptions() {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { ...GLOBAL_OPTIONS };
  for (const command of COMMANDS) {
    for (const [flag, spec] of Object.entries(command.flags))
      options[flag] = { type: spec.kind === 'boolean' ? 'boolean' : 'string' };
  }
  return options;
}

function strictParse(argv: readonly string[], command: CliCommand) {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = { ...GLOBAL_OPTIONS };
  for (const [flag, spec] of Object.entries(command.flags))
    options[flag] = { type: spec.kind === 'boolean' ? 'boolean' : 'string' };
  try {
    return parseArgs({ args: [...argv], options, strict: true, allowPositionals: true });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS')) {
      // Node appends a long hint about `--`; the first sentence is the useful part.
      const message = (error as Error).message.split(/\.\s/)[0] ?? (error as Error).message;
      throw new UsageError(message, command.name);
    }
    throw error;
  }
}

function convertFlags(command: CliCommand, values: Record<string, string | boolean | undefined>) {
  const flags: Record<string, string | number | string[] | boolean | undefined> = {};
  for (const [flag, spec] of Object.entries(command.flags)) {
    const raw = values[flag];
    if (spec.kind === 'boolean') {
      flags[flag] = raw === true;
      continue;
    }
    if (typeof raw !== 'string') {
      if (spec.required)
        throw new UsageError(`missing required option --${flag} ${spec.placeholder}`, command.name);
      continue;
    }
    if (spec.kind === 'integer') {
      if (!/^-?\d+$/.test(raw.trim())) {
        throw new UsageError(`--${flag} must be a whole number, got "${raw}"`, command.name);
      }
      flags[flag] = Number(raw);
    } else if (spec.kind === 'list') {
      flags[flag] = raw
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== '');
    } else {
      flags[flag] = raw;
    }
  }
  return flags;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function connect(values: { url?: string; token?: string }, env: Env): AdminClient {
  const baseUrl = nonEmpty(values.url) ?? nonEmpty(env.AGENCY_CRM_URL) ?? DEFAULT_URL;
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new UsageError(`"${baseUrl}" is not a URL (expected e.g. ${DEFAULT_URL})`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new UsageError(`"${baseUrl}" must be an http:// or https:// URL`);
  }
  const token = nonEmpty(values.token) ?? nonEmpty(env.ADMIN_TOKEN);
  if (token === undefined) throw new UsageError('no admin token: set ADMIN_TOKEN or pass --token');
  return createAdminClient({ baseUrl, token });
}

async function dispatch(argv: readonly string[], env: Env, out: CliOutput): Promise<number> {
  // First pass, lenient: flags may come before the command words, so find the words knowing which
  // flags take a value. The second pass, strict, uses only the chosen command's flags.
  const loose = parseArgs({ args: [...argv], options: allOptions(), strict: false, allowPositionals: true });
  const wantsHelp = loose.values.help === true;
  const [group, action] = loose.positionals;

  if (group === undefined) {
    if (wantsHelp) {
      out.stdout(topHelp());
      return 0;
    }
    throw new UsageError('missing command');
  }
  const name = `${group} ${action ?? ''}`.trim();
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    const isGroup = COMMANDS.some((c) => c.name.startsWith(`${group} `));
    if (isGroup && wantsHelp && action === undefined) {
      out.stdout(groupHelp(group));
      return 0;
    }
    if (isGroup) {
      throw new UsageError(
        action === undefined ? `missing ${group} command` : `unknown command "${name}"`,
        `group:${group}`,
      );
    }
    throw new UsageError(`unknown command "${name}"`);
  }

  const { values, positionals } = strictParse(argv, command);
  if (values.help === true) {
    out.stdout(commandHelp(command));
    return 0;
  }
  const args = positionals.slice(2);
  const expected = command.positionals ?? [];
  if (args.length < expected.length) {
    throw new UsageError(`missing ${expected.slice(args.length).join(' ')}`, command.name);
  }
  if (args.length > expected.length) {
    throw new UsageError(`unexpected argument "${args[expected.length]}"`, command.name);
  }
  const flags = convertFlags(command, values);
  const client = connect(values as { url?: string; token?: string }, env);

  const result = await command.run({ flags, args, client });
  if (values.json === true) {
    out.stdout(`${JSON.stringify(result.data, null, 2)}\n`);
  } else {
    if (result.report) out.stderr(result.report);
    out.stdout(`${result.summary}\n`);
  }
  return result.exitCode ?? 0;
}

function usageHint(error: UsageError): string {
  if (error.helpFor?.startsWith('group:')) return `\n${groupHelp(error.helpFor.slice('group:'.length))}`;
  if (error.helpFor) {
    const command = COMMANDS.find((c) => c.name === error.helpFor);
    if (command) return `${usageLine(command)}\nRun \`agency-crm ${command.name} --help\` for all options.\n`;
  }
  return 'Run `agency-crm --help` for the list of commands.\n';
}

const processOutput: CliOutput = {
  stdout: (text) => void process.stdout.write(text),
  stderr: (text) => void process.stderr.write(text),
};

/**
 * Runs the CLI and returns its exit code. `env` is passed in (never read at import time) so the
 * caller decides where AGENCY_CRM_URL and ADMIN_TOKEN come from.
 */
export async function main(
  argv: readonly string[],
  env: Env,
  out: CliOutput = processOutput,
): Promise<number> {
  try {
    return await dispatch(argv, env, out);
  } catch (error) {
    if (error instanceof UsageError) {
      out.stderr(`agency-crm: ${error.message}\n${usageHint(error)}`);
      return 2;
    }
    if (error instanceof AdminApiError) {
      out.stderr(`${error.describe()}\n`);
      return 1;
    }
    if (error instanceof ConnectionError) {
      out.stderr(`${error.message}\n`);
      return 1;
    }
    if (error instanceof CommandFailure) {
      out.stderr(`agency-crm: ${error.message}\n`);
      return 1;
    }
    out.stderr(
      `agency-crm: unexpected failure: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    return 1;
  }
}
