import { readFileSync } from 'node:fs';

/**
 * CPU accounting from /proc (Linux only; elsewhere every figure is null): how busy each of our
 * processes was during a run, and how much CPU went to anything else on the machine (other
 * processes, PostgreSQL backends), which is what makes two runs incomparable.
 */
const TICKS_PER_S = 100; // USER_HZ: 100 on every Linux the benchmark runs on.

interface Snapshot {
  at: number;
  busyTicks: number | null;
  processTicks: Map<number, number | null>;
}

function machineBusyTicks(): number | null {
  try {
    const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
      .trim()
      .split(/\s+/)
      .slice(1)
      .map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return user + nice + system + irq + softirq + steal;
  } catch {
    return null;
  }
}

function processTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces): utime is the 12th, stime the 13th.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

export interface CpuUsage {
  /** Percent of one core, per process name. */
  processes: Record<string, number | null>;
  /** Percent of one core used by everything else (other processes, database backends, the kernel). */
  other: number | null;
}

export function cpuSnapshot(pids: Record<string, number>): Snapshot {
  return {
    at: performance.now(),
    busyTicks: machineBusyTicks(),
    processTicks: new Map(Object.values(pids).map((pid) => [pid, processTicks(pid)])),
  };
}

export function cpuUsage(pids: Record<string, number>, start: Snapshot): CpuUsage {
  const end = cpuSnapshot(pids);
  const seconds = (end.at - start.at) / 1000;
  const percent = (ticks: number) => Math.round((ticks / TICKS_PER_S / seconds) * 100);
  const processes: Record<string, number | null> = {};
  let ours = 0;
  const counted = new Set<number>();
  for (const [name, pid] of Object.entries(pids)) {
    const before = start.processTicks.get(pid);
    const after = end.processTicks.get(pid);
    const used = before == null || after == null ? null : after - before;
    processes[name] = used === null ? null : percent(used);
    // A process listed under two names (a target that is also another's idle neighbour) counts once.
    if (!counted.has(pid)) ours += used ?? 0;
    counted.add(pid);
  }
  const other =
    start.busyTicks === null || end.busyTicks === null
      ? null
      : percent(Math.max(0, end.busyTicks - start.busyTicks - ours));
  return { processes, other };
}

/** Percent of one core the whole machine used over `seconds` (null where /proc is missing). */
async function machineBusyPercent(seconds: number): Promise<number | null> {
  const before = machineBusyTicks();
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = machineBusyTicks();
  return before === null || after === null
    ? null
    : Math.round(((after - before) / TICKS_PER_S / seconds) * 100);
}

/**
 * Waits (at most `timeoutS`) until the machine is quiet: other processes — test runs, builds —
 * take the cores the client and server need and would make one run incomparable with the next.
 * Call it between runs, when the benchmark's own processes are idle. Returns the seconds waited
 * and the last busy figure.
 */
export async function waitForQuiet(
  options: { maxBusyPercent: number; timeoutS: number },
  onWait: (busyPercent: number) => void,
): Promise<{ waitedS: number; busyPercent: number | null }> {
  const started = performance.now();
  let busy = await machineBusyPercent(1);
  let told = false;
  while (
    busy !== null &&
    busy > options.maxBusyPercent &&
    performance.now() - started < options.timeoutS * 1000
  ) {
    if (!told) onWait(busy);
    told = true;
    busy = await machineBusyPercent(1);
  }
  return { waitedS: Math.round((performance.now() - started) / 1000), busyPercent: busy };
}
