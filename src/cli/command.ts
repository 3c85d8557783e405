// What a CLI command is: its words, flags and run function. Each command file declares one; main.ts
// lists them, parses the flags and prints the result.
import type { AdminClient } from './admin-client.ts';

/**
 * How a flag's string becomes a JSON value: as is, a whole number, or a comma-separated list;
 * a `boolean` flag takes no value (present = true).
 */
export type FlagKind = 'string' | 'integer' | 'list' | 'boolean';

export interface FlagSpec {
  kind: FlagKind;
  /** Shown in help: `--name NAME`. */
  placeholder: string;
  description: string;
  required?: boolean;
}

export type FlagSpecs = Record<string, FlagSpec>;

type KindValue<K extends FlagKind> = K extends 'integer'
  ? number
  : K extends 'list'
    ? string[]
    : K extends 'boolean'
      ? boolean
      : string;
type FlagValue<S extends FlagSpec> =
  KindValue<S['kind']> | (S extends { required: true } ? never : undefined);

/** Parsed, converted flag values; required flags are guaranteed present. */
export type Flags<F extends FlagSpecs> = { [K in keyof F]: FlagValue<F[K]> };

/** What a command hands back: the API's `data` (printed by --json) and a short human summary. */
export interface CommandResult {
  data: unknown;
  summary: string;
  /** Printed on stderr before the summary (not with --json, where `data` carries it). */
  report?: string;
  /** Default 0; an import with failed rows answers 1. */
  exitCode?: number;
}

export interface CliCommand<F extends FlagSpecs = FlagSpecs> {
  /** The command words, e.g. `org create`. */
  name: string;
  summary: string;
  /** Names of required positional arguments, in order (e.g. `KEY_ID`). */
  positionals?: readonly string[];
  flags: F;
  /** Extra help paragraph. */
  notes?: string;
  run(input: { flags: Flags<F>; args: readonly string[]; client: AdminClient }): Promise<CommandResult>;
}
