/**
 * The SQLSTATE of a database error, looked up through the `cause` chain (drizzle wraps driver
 * errors; pg and PGlite both put the SQLSTATE in `code`), with the violated constraint's name.
 */
export function databaseError(error: unknown): { code: string; constraint: string | null } | null {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current; depth++) {
    const candidate = current as { code?: unknown; constraint?: unknown; cause?: unknown };
    if (typeof candidate.code === 'string' && /^[0-9A-Z]{5}$/.test(candidate.code)) {
      return {
        code: candidate.code,
        constraint: typeof candidate.constraint === 'string' ? candidate.constraint : null,
      };
    }
    current = candidate.cause;
  }
  return null;
}

export const UNIQUE_VIOLATION = '23505';
export const EXCLUSION_VIOLATION = '23P01';

/**
 * SQLSTATEs that say "the database cannot serve right now" rather than "this statement is wrong":
 * class 08 (connection exception), 57P01-57P03 (admin shutdown, crash shutdown, cannot connect now:
 * a stop, a restart, `pg_terminate_backend`, start-up) and 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATE = /^(08[0-9A-Z]{3}|57P0[123]|53300)$/;
/** Socket errors of a connection attempt or a connection that broke (node:net). */
const UNAVAILABLE_SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/**
 * What `pg` and `pg-pool` throw without any code when the server went away or never answered
 * (pg/lib/client.js, pg-pool/index.js): matched by message, as nothing else identifies them.
 */
const UNAVAILABLE_DRIVER_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Client was closed and is not queryable|Query read timeout)/;

/**
 * True when an error (or one of its causes) means the database is unreachable, restarting or
 * refusing connections: the request may succeed if retried shortly, so it is a 503, not a 500.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const queue: unknown[] = [error];
  for (let seen = 0; seen < 10 && queue.length > 0; seen++) {
    const current = queue.shift() as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (current === null || typeof current !== 'object') continue;
    const code = typeof current.code === 'string' ? current.code : '';
    if (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_SOCKET_CODES.has(code)) return true;
    if (typeof current.message === 'string' && UNAVAILABLE_DRIVER_MESSAGES.test(current.message)) return true;
    if (current.cause !== undefined) queue.push(current.cause);
    // A connection attempt to several addresses fails with an AggregateError of each one's error.
    if (Array.isArray(current.errors)) queue.push(...(current.errors as unknown[]));
  }
  return false;
}

/** 26000 invalid_sql_statement_name, 42P05 duplicate_prepared_statement. */
const PREPARED_STATEMENT_LOST = new Set(['26000', '42P05']);

/**
 * A named prepared statement the server does not hold (or holds already under that name): what a
 * pooler in transaction mode does to a connection's statements when it hands the session on.
 */
export function isPreparedStatementLoss(error: unknown): boolean {
  const code = databaseError(error)?.code;
  return code !== undefined && PREPARED_STATEMENT_LOST.has(code);
}
