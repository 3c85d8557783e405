import type { Logger } from '../logging/logger.ts';

/** A timed job of the worker: runs every `intervalMs`, never overlapping itself. */
export interface Job {
  name: string;
  intervalMs: number;
  run(): Promise<void>;
  /** Asks a long run to wind down (the delivery worker finishes its attempts in flight). */
  stop?(): Promise<void>;
}

export interface RunningJobs {
  stop(): Promise<void>;
}

/** Starts each job now and then every interval; `stop` waits for runs in flight. */
export function startJobs(jobs: readonly Job[], log: Logger): RunningJobs {
  let stopped = false;
  const timers = new Map<Job, NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();

  for (const job of jobs) {
    const tick = async () => {
      if (stopped) return;
      const run = job.run().catch((error: unknown) => log.error({ err: error, job: job.name }, 'job failed'));
      inFlight.add(run);
      await run;
      inFlight.delete(run);
      if (!stopped) timers.set(job, setTimeout(() => void tick(), job.intervalMs).unref());
    };
    void tick();
  }

  return {
    async stop() {
      stopped = true;
      timers.forEach((timer) => clearTimeout(timer));
      await Promise.all(jobs.map((job) => job.stop?.()));
      await Promise.all(inFlight);
    },
  };
}
