// Read replicas (DATABASE_READ_URL): which replica may serve an organization's read right now.
// Decision 0219: lag is measured against the primary's own WAL position (no replica clock involved),
// and read-your-writes follows each organization's last commit LSN.
import type pg from 'pg';
import type { WritePositions } from './write-positions.ts';

/** A WAL position (`16/B374D848`) as a number that compares. */
export function lsnValue(text: string): bigint {
  const [high, low] = text.split('/');
  if (high === undefined || low === undefined) throw new Error(`not an LSN: ${JSON.stringify(text)}`);
  return (BigInt(`0x${high}`) << 32n) | BigInt(`0x${low}`);
}

export type ReplicaState = 'ok' | 'lagging' | 'down' | 'starting';

export interface ReplicaStatus {
  /** host:port/database of the replica (no credentials). */
  name: string;
  /** ok: serves reads; lagging: behind more than DATABASE_READ_MAX_LAG_MS; down: no answer, or not a standby. */
  state: ReplicaState;
  /** How far behind the primary it is, in ms (null until measured, or when down). */
  lagMs: number | null;
  /** Reads it has served since the process started. */
  reads: number;
  /** Why it is down (null otherwise). */
  error: string | null;
}

export interface ReplicaSettings {
  urls: readonly string[];
  poolSize: number;
  maxLagMs: number;
  connectMs: number;
  /** How often the replicas' positions are read (default 200 ms). */
  probeMs?: number;
  /** Positions shared with the other processes (Redis); this process's own writes only without. */
  shared?: WritePositions;
}

interface Replica {
  name: string;
  pool: pg.Pool;
  state: ReplicaState;
  replayed: bigint;
  lagMs: number | null;
  reads: number;
  error: string | null;
}

/** What the primary's WAL position was at an instant: lag is the age of the oldest one a replica lacks. */
interface Sample {
  at: number;
  lsn: bigint;
}

const PROBE_MS = 200;

export function replicaName(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '5432'}${parsed.pathname}`;
}

/**
 * The replicas of one process: a pool each, probed every `probeMs`, and the organizations' last
 * commit positions. `pick` answers the replica to read from, or null for the primary.
 */
export class ReplicaSet {
  private readonly replicas: Replica[];
  private readonly written = new Map<string, bigint>();
  /** Writes forgotten once every healthy replica had them: a replica coming back must be past them too. */
  private forgottenUpTo = 0n;
  private samples: Sample[] = [];
  private next = 0;
  private timer: NodeJS.Timeout | null = null;
  private probing: Promise<void> = Promise.resolve();

  constructor(
    private readonly primary: { currentLsn(): Promise<string> },
    private readonly settings: ReplicaSettings,
    pools: (url: string) => pg.Pool,
  ) {
    this.replicas = settings.urls.map((url) => ({
      name: replicaName(url),
      pool: pools(url),
      state: 'starting' as ReplicaState,
      replayed: 0n,
      lagMs: null,
      reads: 0,
      error: null,
    }));
  }

  /** Probes now, then every `probeMs` (the timer does not keep the process alive). */
  async start(): Promise<void> {
    await this.probe();
    const every = this.settings.probeMs ?? PROBE_MS;
    const tick = () => {
      this.probing = this.probe().finally(() => {
        if (this.timer !== null) this.timer = setTimeout(tick, every).unref();
      });
    };
    this.timer = setTimeout(tick, every).unref();
  }

  /**
   * After an organization's write committed at `lsn`: its reads, in every process, wait for a
   * replica past it. Resolves once the other processes can know (before the write is acknowledged).
   */
  async noteWrite(organizationId: string, lsn: string): Promise<void> {
    const value = lsnValue(lsn);
    if ((this.written.get(organizationId) ?? 0n) < value) this.written.set(organizationId, value);
    // Any replica further behind than the lag limit and two probes serves nothing: forgotten after that.
    const keepMs = this.settings.maxLagMs + 2 * (this.settings.probeMs ?? PROBE_MS) + 5_000;
    await this.settings.shared?.note(organizationId, value, keepMs);
  }

  /** A replica that is within the lag limit and has replayed the organization's last write, or null. */
  async pick(organizationId: string): Promise<{ pool: pg.Pool; done(): void; failed(error: unknown): void } | null> {
    let needed = this.written.get(organizationId) ?? 0n;
    if (needed < this.forgottenUpTo) needed = this.forgottenUpTo;
    if (this.settings.shared !== undefined) {
      try {
        const shared = await this.settings.shared.last(organizationId);
        if (shared > needed) needed = shared;
      } catch {
        return null; // Where the organization's last write is cannot be known: the primary has it.
      }
    }
    for (let i = 0; i < this.replicas.length; i++) {
      const replica = this.replicas[(this.next + i) % this.replicas.length] as Replica;
      if (replica.state !== 'ok' || replica.replayed < needed) continue;
      this.next = (this.next + i + 1) % this.replicas.length;
      return {
        pool: replica.pool,
        done: () => {
          replica.reads += 1;
        },
        failed: (error) => this.markDown(replica, error),
      };
    }
    return null;
  }

  status(): ReplicaStatus[] {
    return this.replicas.map(({ name, state, lagMs, reads, error }) => ({ name, state, lagMs, reads, error }));
  }

  async close(): Promise<void> {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    await this.probing;
    await Promise.all(this.replicas.map((replica) => replica.pool.end().catch(() => undefined)));
    await this.settings.shared?.close();
  }

  private markDown(replica: Replica, error: unknown): void {
    replica.state = 'down';
    replica.lagMs = null;
    replica.error = error instanceof Error ? error.message : String(error);
  }

  /** One round: the primary's position, then each replica's replayed position and lag. */
  private async probe(): Promise<void> {
    const now = Date.now();
    try {
      this.samples.push({ at: now, lsn: lsnValue(await this.primary.currentLsn()) });
    } catch {
      // The primary is down: the replicas' lag cannot be judged; keep the last figures.
    }
    const keepSince = now - Math.max(60_000, this.settings.maxLagMs * 4);
    while (this.samples.length > 1 && (this.samples[0] as Sample).at < keepSince) this.samples.shift();
    await Promise.all(this.replicas.map((replica) => this.probeReplica(replica, now)));
    this.forgetReplayedWrites();
  }

  private async probeReplica(replica: Replica, now: number): Promise<void> {
    let replayed: string | null;
    try {
      const result = await replica.pool.query<{ replayed: string | null }>(
        'SELECT pg_last_wal_replay_lsn()::text AS replayed',
      );
      replayed = result.rows[0]?.replayed ?? null;
    } catch (error) {
      this.markDown(replica, error);
      return;
    }
    if (replayed === null) {
      this.markDown(replica, new Error('not a standby: pg_last_wal_replay_lsn() is null'));
      return;
    }
    replica.replayed = lsnValue(replayed);
    // The oldest instant at which the primary was already past what the replica has replayed.
    const missing = this.samples.find((sample) => sample.lsn > replica.replayed);
    replica.lagMs = missing === undefined ? 0 : now - missing.at;
    replica.state = replica.lagMs > this.settings.maxLagMs ? 'lagging' : 'ok';
    replica.error = null;
  }

  /** Writes every healthy replica has replayed need no tracking (keeps the map small). */
  private forgetReplayedWrites(): void {
    const healthy = this.replicas.filter((replica) => replica.state === 'ok');
    if (healthy.length === 0) return;
    let floor = (healthy[0] as Replica).replayed;
    for (const replica of healthy) if (replica.replayed < floor) floor = replica.replayed;
    for (const [organizationId, lsn] of this.written) {
      if (lsn > floor) continue;
      this.written.delete(organizationId);
      if (lsn > this.forgottenUpTo) this.forgottenUpTo = lsn;
    }
  }
}
