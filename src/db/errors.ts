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
