/** One line for an operator script's failure message. */
export function describeError(error: unknown): string {
  // A connection refused on a dual-stack host is an AggregateError with an empty message.
  if (error instanceof AggregateError && !error.message) return error.errors.map(describeError).join('; ');
  if (error instanceof Error) return error.message || (error as NodeJS.ErrnoException).code || error.name;
  return String(error);
}
