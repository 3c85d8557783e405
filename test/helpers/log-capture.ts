import { Writable } from 'node:stream';

/** Where a test app's log goes when a test searches it (for a credential that must not be there). */
export interface CapturedLogs {
  /** The app's `logStream`. */
  stream: Writable;
  /** Everything written so far. */
  text(): string;
}

/** A log destination that keeps every line the app writes. */
export function captureLogs(): CapturedLogs {
  let written = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      written += String(chunk);
      done();
    },
  });
  return { stream, text: () => written };
}
