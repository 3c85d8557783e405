import { writeFileSync } from 'node:fs';
import pg from 'pg';

/** One statement as the pg driver was asked to send it. */
export interface CapturedStatement {
  text: string;
  values: unknown[];
}

export interface CaptureOptions {
  /** JSON file the statements are written to once `limit` of them were seen. */
  file: string;
  /** Only statements whose text matches (e.g. the portal listing's). */
  match: string;
  limit: number;
}

type Config = string | { text?: string; values?: unknown[]; carries?: { text: string; values: unknown[] } };

/**
 * The statement one pg `query` call sends: a transaction's opening sent with its first statement
 * (src/db/pg-statements.ts) is that statement, as Drizzle handed it over.
 */
function statementOf(args: unknown[]): { config: Config; values: unknown; text: string } {
  const [config, values] = args as [Config, unknown];
  if (typeof config === 'object' && config.carries)
    return { config: config.carries, values: config.carries.values, text: config.carries.text };
  return { config, values, text: typeof config === 'string' ? config : (config.text ?? '') };
}

/**
 * Records, in this process, the first `limit` statements matching `match` that any pg client sends
 * (every pool connection is a pg.Client), text and parameters exactly as handed to the driver, then
 * restores the driver. The portal scenario starts the service and the baseline with it to prove both
 * send the same SQL with the same parameters.
 */
export function captureSql(options: CaptureOptions): void {
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  const captured: CapturedStatement[] = [];
  prototype.query = function (this: unknown, ...args: unknown[]) {
    const { config, values, text } = statementOf(args);
    if (text.includes(options.match) && captured.length < options.limit) {
      const params = typeof config === 'object' && config.values ? config.values : values;
      captured.push({ text, values: Array.isArray(params) ? params : [] });
      if (captured.length === options.limit) {
        prototype.query = original;
        writeFileSync(options.file, JSON.stringify(captured, null, 2));
      }
    }
    return original.apply(this, args);
  };
}

/**
 * Runs `work` in this process and answers it with every statement matching `match` that any pg
 * client sent meanwhile (nothing else may query concurrently: the recorder is process-wide).
 */
export async function recordStatements<T>(
  match: string,
  work: () => Promise<T>,
): Promise<{ result: T; statements: CapturedStatement[] }> {
  const prototype = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = prototype.query;
  const statements: CapturedStatement[] = [];
  prototype.query = function (this: unknown, ...args: unknown[]) {
    const { config, values, text } = statementOf(args);
    if (text.includes(match)) {
      const params = typeof config === 'object' && config.values ? config.values : values;
      statements.push({ text, values: Array.isArray(params) ? params : [] });
    }
    return original.apply(this, args);
  };
  try {
    return { result: await work(), statements };
  } finally {
    prototype.query = original;
  }
}
