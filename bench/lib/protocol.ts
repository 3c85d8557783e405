/** Messages between the benchmark (parent) and a server it runs in a child process. */

/** Parent -> child: start listening with these options (each server entry defines its own). */
export interface StartMessage<Options = unknown> {
  type: 'start';
  options: Options;
}

/** Parent -> child: close everything and exit (exiting normally lets `--cpu-prof` write its profile). */
export interface StopMessage {
  type: 'stop';
}

/** Child -> parent: listening on 127.0.0.1:port; `info` describes what was started. */
export interface ReadyMessage {
  type: 'ready';
  port: number;
  info: Record<string, unknown>;
}

/** Child -> parent: starting failed. */
export interface FailedMessage {
  type: 'failed';
  message: string;
}

export type ParentMessage = StartMessage | StopMessage;
export type ChildMessage = ReadyMessage | FailedMessage;

/** The admin token of the service under test (any value of 16+ characters). */
export const BENCH_ADMIN_TOKEN = 'bench-admin-token-0123456789';
/** SECRETS_KEY of the bench's service and worker processes: one seals the webhook secrets the other opens. */
export const BENCH_SECRETS_KEY = Buffer.alloc(32, 42).toString('base64');

/**
 * Runs a server entry inside a child process: waits for `start`, calls `listen`, reports the port,
 * and on `stop` (or when the parent goes away) calls `close` and exits.
 */
export function serveChild<Options>(
  listen: (
    options: Options,
  ) => Promise<{ port: number; info: Record<string, unknown>; close: () => Promise<void> }>,
): void {
  if (!process.send)
    throw new Error('this file is a benchmark server: the benchmark starts it with an IPC channel');
  const send = (message: ChildMessage) => process.send?.(message);
  let close: (() => Promise<void>) | null = null;
  let stopping = false;

  const stop = async () => {
    if (stopping) return;
    stopping = true;
    try {
      await close?.();
    } finally {
      process.exit(0);
    }
  };

  process.on('message', (message: ParentMessage) => {
    if (message.type === 'stop') {
      void stop();
      return;
    }
    listen(message.options as Options).then(
      (started) => {
        close = started.close;
        send({ type: 'ready', port: started.port, info: started.info });
      },
      (error: unknown) => {
        send({
          type: 'failed',
          message: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
        process.exit(1);
      },
    );
  });
  process.on('disconnect', () => void stop());
}
