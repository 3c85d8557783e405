/**
 * A command could not do its work for a reason outside the command line and the API (an
 * unreadable or malformed input file): printed as `agency-crm: <message>`, exit code 1.
 */
export class CommandFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandFailure';
  }
}

/** A mistake in the command line: printed with a hint (the command's usage when known), exit code 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly helpFor?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}
