// Where each organization's last write is in the primary's WAL, for read-your-writes across
// processes (decision 0219): a write acknowledged by one API process must be seen by a read that the
// load balancer sends to another. GitLab's database load balancing keeps the same thing in Redis.
import { Redis } from 'ioredis';

/** A WAL position as 16 hex digits: strings of one width compare like the positions (also in Lua). */
export function lsnKey(lsn: bigint): string {
  return lsn.toString(16).padStart(16, '0');
}

export interface WritePositions {
  /** The organization wrote up to `lsn` (kept at least `keepMs`); resolves once shared. */
  note(organizationId: string, lsn: bigint, keepMs: number): Promise<void>;
  /** Its last write shared by any process (0n: none known); throws when that cannot be known. */
  last(organizationId: string): Promise<bigint>;
  close(): Promise<void>;
}

/** Keeps the greater of the stored and the given position; the key expires with the last write. */
const KEEP_GREATEST = `local current = redis.call('get', KEYS[1])
if (not current) or current < ARGV[1] then
  redis.call('set', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
return 1`;

const PREFIX = 'agency:write-lsn:';

/**
 * The positions in Redis (REDIS_URL), shared by every API process and worker. Redis down: `last`
 * throws, so the read goes to the primary (never a stale read); `note` is lost, which is safe for
 * the same reason while Redis stays down, and ages out with the lag limit.
 */
export class RedisWritePositions implements WritePositions {
  private readonly redis: Redis;

  constructor(url: string) {
    // No offline queue: while Redis is down a read is served by the primary at once.
    this.redis = new Redis(url, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    // ioredis reconnects by itself; an unhandled 'error' event would crash the process.
    this.redis.on('error', () => undefined);
  }

  async note(organizationId: string, lsn: bigint, keepMs: number): Promise<void> {
    await this.redis.eval(KEEP_GREATEST, 1, PREFIX + organizationId, lsnKey(lsn), String(keepMs)).catch(() => undefined);
  }

  async last(organizationId: string): Promise<bigint> {
    const stored = await this.redis.get(PREFIX + organizationId);
    return stored === null ? 0n : BigInt(`0x${stored}`);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
