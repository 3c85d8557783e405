// node-postgres connections as the service uses them: Drizzle's statements become named prepared
// statements, and a transaction's opening (BEGIN and its prelude) rides in the same message as its
// first statement once that statement is prepared on the connection (decision 0228).
import { createHash } from 'node:crypto';
import pg from 'pg';

/** Distinct statements one connection keeps prepared; past this, statements are sent unnamed. */
const PREPARED_PER_CONNECTION = 200;
const statementNames = new Map<string, string>();

/** A stable name per statement text (the same in every connection and process). */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (name === undefined) {
    name = `s_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    // Bounded like the connections' own sets: texts beyond it are hashed again each time.
    if (statementNames.size < PREPARED_PER_CONNECTION * 4) statementNames.set(text, name);
  }
  return name;
}

/** A transaction's opening statements, not sent yet, and who wants their results. */
export interface PendingOpening {
  statements: string[];
  /** Called with the opening's results (one per statement, rows as objects) once they arrived. */
  opened(results: pg.QueryResult[]): void;
}

/** What the service runs its statements on: Drizzle's client, and the opening it still has to send. */
export interface ServiceConnection {
  /** The client Drizzle is given (statements named when preparing is on). */
  driver: pg.PoolClient;
  /** Sends `opening` with the transaction's first statement when it can, else just before it (null: drop it). */
  defer(opening: PendingOpening | null): void;
  /** Sends the opening if no statement took it yet (a transaction that ran no statement). */
  flush(): Promise<void>;
  /** True while the opening is still unsent: then there is no transaction on the server to end. */
  readonly pending: boolean;
}

interface QueryConfig {
  text: string;
  name?: string;
  values?: unknown[];
  rowMode?: 'array';
  types?: unknown;
}

type Query = (config: unknown, values?: unknown) => Promise<unknown>;

const { prepareValue } = (pg as unknown as { utils: { prepareValue(value: unknown): unknown } }).utils;

/**
 * A value as a SQL literal, as node-postgres would send it as a parameter (its own prepareValue),
 * or null when it cannot be one: a NUL character (the simple protocol's text would end there).
 */
function literal(value: unknown): string | null {
  const prepared = prepareValue(value);
  if (prepared === null) return 'NULL';
  const text = Buffer.isBuffer(prepared) ? `\\x${prepared.toString('hex')}` : String(prepared);
  return text.includes('\0') ? null : pg.escapeLiteral(text);
}

/** The rows of a result as objects, whatever row mode the message ran in. */
function asObjects(result: pg.QueryResult, rowMode: 'array' | undefined): pg.QueryResult {
  if (rowMode !== 'array') return result;
  const rows = (result.rows as unknown as unknown[][]).map((row) =>
    Object.fromEntries(result.fields.map((field, i) => [field.name, row[i]])),
  );
  return { ...result, rows };
}

/**
 * Wraps one pooled connection. While `prepare()` holds, every Drizzle statement with a text becomes a named
 * prepared statement (PostgreSQL parses, rewrites (row-level security included) and, once its plan
 * cache judges it safe, plans a statement once per connection instead of on every call:
 * docs/performance.md); Drizzle builds the same text for the same query shape, so the number of
 * names is the number of shapes, bounded per connection all the same.
 *
 * A deferred opening is sent in one simple-protocol message with the first statement,
 * `BEGIN; <prelude>; EXECUTE <name>(<literals>)`, when that statement is already prepared on this
 * connection (protocol-level prepared statements are what SQL's EXECUTE runs): one round trip less
 * per transaction. Otherwise (first use on the connection, preparing off, a value that cannot be a
 * literal) the opening goes alone, just before the statement, as it always did.
 */
export function serviceConnection(client: pg.PoolClient, prepare: () => boolean): ServiceConnection {
  const named = new Set<string>();
  // Looked up at each call (not bound once), so whatever pg.Client.prototype.query is then runs.
  const target = client as unknown as { query: Query };
  const send: Query = (config, values) => target.query(config, values);
  const parsed = (client as unknown as { connection: { parsedStatements: Record<string, string> } }).connection
    .parsedStatements;
  let opening: PendingOpening | null = null;

  const sendOpening = async (pendingOpening: PendingOpening) => {
    const results = (await target.query(pendingOpening.statements.join('; '))) as unknown;
    pendingOpening.opened((Array.isArray(results) ? results : [results]) as pg.QueryResult[]);
  };

  /** The opening and the statement in one message, or null when the statement cannot ride with it. */
  const together = (pendingOpening: PendingOpening, config: QueryConfig, values: unknown[]) => {
    if (!prepare() || config.name === undefined || parsed[config.name] !== config.text) return null;
    const literals = values.map(literal);
    if (literals.some((l) => l === null)) return null;
    const execute = `EXECUTE ${pg.escapeIdentifier(config.name)}${literals.length > 0 ? `(${literals.join(', ')})` : ''}`;
    return {
      text: [...pendingOpening.statements, execute].join('; '),
      // Ignored by node-postgres: the statement the message carries, for whoever watches the driver's
      // queries (the benchmarks' SQL capture, bench/lib/sql-capture.ts).
      carries: { text: config.text, values },
      ...(config.rowMode ? { rowMode: config.rowMode } : {}),
      ...(config.types ? { types: config.types } : {}),
    };
  };

  const query: Query = async (config, values) => {
    let sent: unknown = config;
    if (prepare() && typeof config === 'object' && config !== null && 'text' in config && !('name' in config && config.name)) {
      const name = statementName(String(config.text));
      if (named.has(name) || named.size < PREPARED_PER_CONNECTION) {
        named.add(name);
        // Not `{ ...config, name }`: on Node 20 a spread's copy leaves the young generation (decision 0251).
        sent = Object.assign({}, config, { name });
      }
    }
    const pendingOpening = opening;
    if (pendingOpening === null) return send(sent, values);
    opening = null;
    const statement = sent as QueryConfig;
    const params = (values ?? statement.values ?? []) as unknown[];
    const message = typeof sent === 'object' && sent !== null ? together(pendingOpening, statement, params) : null;
    if (message === null) {
      await sendOpening(pendingOpening);
      return send(sent, values);
    }
    const results = (await target.query(message)) as unknown as pg.QueryResult[];
    const count = pendingOpening.statements.length;
    pendingOpening.opened(results.slice(0, count).map((r) => asObjects(r, statement.rowMode)));
    return results[count];
  };

  const driver = Object.assign(Object.create(client) as pg.PoolClient, { query });
  return {
    driver,
    defer(pendingOpening) {
      opening = pendingOpening;
    },
    async flush() {
      const pendingOpening = opening;
      opening = null;
      if (pendingOpening) await sendOpening(pendingOpening);
    },
    get pending() {
      return opening !== null;
    },
  };
}
