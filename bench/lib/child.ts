import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import type { ChildMessage, ParentMessage } from './protocol.ts';

export interface ChildServer {
  readonly name: string;
  readonly pid: number;
  readonly url: string;
  readonly info: Record<string, unknown>;
  stop(): Promise<void>;
}

export interface StartChildOptions<Options> {
  /** Shown in errors and the report. */
  name: string;
  /** Absolute path of a server entry that calls `serveChild` (bench/lib/protocol.ts). */
  entry: string;
  options: Options;
  /** Extra Node flags for the child, e.g. `--cpu-prof`. */
  nodeArgs?: string[];
  env?: NodeJS.ProcessEnv;
  /** Receives the child's standard output line by line instead of the terminal (e.g. `--trace-gc-nvp`). */
  onStdoutLine?: (line: string) => void;
}

/**
 * Starts a server in its own Node process (TypeScript through tsx) and waits until it listens.
 * The benchmark client then never shares an event loop with the server it measures.
 */
export async function startChild<Options>(start: StartChildOptions<Options>): Promise<ChildServer> {
  const child: ChildProcess = fork(start.entry, [], {
    execArgv: ['--import', 'tsx', ...(start.nodeArgs ?? [])],
    env: start.env ?? process.env,
    stdio: ['ignore', start.onStdoutLine ? 'pipe' : 'inherit', 'inherit', 'ipc'],
  });
  if (start.onStdoutLine && child.stdout) {
    const onLine = start.onStdoutLine;
    let rest = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    });
  }
  const exited = once(child, 'exit');

  const ready = new Promise<{ port: number; info: Record<string, unknown> }>((resolve, reject) => {
    child.once('message', (message: ChildMessage) => {
      if (message.type === 'ready') resolve({ port: message.port, info: message.info });
      else reject(new Error(`${start.name} failed to start:\n${message.message}`));
    });
    child.once('exit', (code, signal) =>
      reject(new Error(`${start.name} exited before listening (${code ?? signal})`)),
    );
    child.once('error', reject);
  });
  child.send({ type: 'start', options: start.options } satisfies ParentMessage);
  const { port, info } = await ready;

  return {
    name: start.name,
    pid: child.pid ?? -1,
    url: `http://127.0.0.1:${port}`,
    info,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.send({ type: 'stop' } satisfies ParentMessage);
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
