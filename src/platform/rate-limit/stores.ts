import type { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';

/** One fixed window of one counter after a change: what the limits and headers need. */
export interface Window {
  /** Points counted in the current window (including this request's when it was allowed). */
  consumed: number;
  allowed: boolean;
  msBeforeReset: number;
}

/**
 * Where fixed-window counters live. `bucket` names the limit (`key`, `key-writes`, `auth`...), `key`
 * the thing limited (an API key id, an organization, an address).
 */
export interface LimitStore {
  /**
   * Counts `points` (default 1) at once unless fewer than that are left of `limit`: all or nothing, so a
   * refused batch takes nothing and a single request fitting in what is left still passes.
   */
  consume(
    bucket: string,
    key: string,
    limit: number,
    windowS: number,
    points?: number,
  ): Window | Promise<Window>;
  /** Gives back `points` (default 1) taken by `consume` (a later limit refused the request). */
  refund(bucket: string, key: string, limit: number, windowS: number, points?: number): void | Promise<void>;
  /** The window without counting; null when empty. */
  peek(bucket: string, key: string, limit: number, windowS: number): Window | null | Promise<Window | null>;
  /** Fills the window for `blockS` seconds: `peek` then reports it full. */
  block(bucket: string, key: string, limit: number, windowS: number, blockS: number): void | Promise<void>;
  close(): Promise<void>;
}

interface Slot {
  consumed: number;
  resetAt: number;
}

const SWEEP_EVERY_MS = 60_000;

/**
 * Single-process counters in a Map, synchronous: the default store. rate-limiter-flexible's own
 * memory store cost ~15 µs of promise machinery per request in bench/ (half the budget of the
 * cheapest route), so the default path uses this and the library serves the shared Redis store.
 */
export class MemoryLimitStore implements LimitStore {
  private readonly slots = new Map<string, Slot>();
  private readonly sweeper: NodeJS.Timeout;

  constructor() {
    // Drops finished windows so the map holds only the keys seen in the last minute or so.
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const [id, slot] of this.slots) if (slot.resetAt <= now) this.slots.delete(id);
    }, SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  private slot(bucket: string, key: string, windowS: number): Slot {
    const id = `${bucket}:${key}`;
    const now = Date.now();
    let slot = this.slots.get(id);
    if (!slot || slot.resetAt <= now) {
      slot = { consumed: 0, resetAt: now + windowS * 1000 };
      this.slots.set(id, slot);
    }
    return slot;
  }

  consume(bucket: string, key: string, limit: number, windowS: number, points = 1): Window {
    const slot = this.slot(bucket, key, windowS);
    const allowed = slot.consumed + points <= limit;
    if (allowed) slot.consumed += points;
    return { consumed: slot.consumed, allowed, msBeforeReset: slot.resetAt - Date.now() };
  }

  refund(bucket: string, key: string, _limit: number, windowS: number, points = 1): void {
    const slot = this.slot(bucket, key, windowS);
    slot.consumed = Math.max(0, slot.consumed - points);
  }

  peek(bucket: string, key: string, _limit: number, _windowS: number): Window | null {
    const slot = this.slots.get(`${bucket}:${key}`);
    if (!slot || slot.resetAt <= Date.now()) return null;
    return { consumed: slot.consumed, allowed: true, msBeforeReset: slot.resetAt - Date.now() };
  }

  block(bucket: string, key: string, limit: number, _windowS: number, blockS: number): void {
    this.slots.set(`${bucket}:${key}`, { consumed: limit, resetAt: Date.now() + blockS * 1000 });
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
  }
}

const REDIS_PREFIX = 'agency-crm:rl';

/**
 * rate-limiter-flexible's increment script (`customIncrTtlLuaScript`: KEYS[1] the counter, ARGV the
 * points, the window in seconds and the limit), made all-or-nothing: points that would take the counter
 * past the limit are not added, and the answer reports the count they would have made, so the library
 * still refuses. Its own script adds them anyway: a refused 10-point batch would then have left the
 * counter 10 over, and refused every single request until the window ended. A negative change (a
 * refund) always applies.
 */
const ALL_OR_NOTHING_INCREMENT = `redis.call('set', KEYS[1], 0, 'EX', ARGV[2], 'NX')
local points = tonumber(ARGV[1])
local consumed = tonumber(redis.call('get', KEYS[1])) + points
if points <= 0 or consumed <= tonumber(ARGV[3]) then
  consumed = redis.call('incrby', KEYS[1], points)
end
local ttl = redis.call('pttl', KEYS[1])
if ttl == -1 then
  redis.call('expire', KEYS[1], ARGV[2])
  ttl = 1000 * ARGV[2]
end
return {consumed, ttl}`;

type MemoryOptions = ConstructorParameters<typeof RateLimiterMemory>[0];

/**
 * rate-limiter-flexible's in-process insurance limiter, which it calls only when a Redis command
 * failed: each call is a decision made without Redis, reported to `fellBack`.
 */
class InsuranceLimiter extends RateLimiterMemory {
  constructor(
    options: MemoryOptions,
    private readonly fellBack: () => void,
  ) {
    super(options);
  }

  /** All or nothing like the Redis script: points a refusal counted are given back. */
  override async consume(...args: Parameters<RateLimiterMemory['consume']>) {
    this.fellBack();
    try {
      return await super.consume(...args);
    } catch (refusal) {
      if (refusal instanceof RateLimiterRes) await super.reward(args[0], args[1] ?? 1);
      throw refusal;
    }
  }

  override reward(...args: Parameters<RateLimiterMemory['reward']>) {
    this.fellBack();
    return super.reward(...args);
  }

  override get(...args: Parameters<RateLimiterMemory['get']>) {
    this.fellBack();
    return super.get(...args);
  }

  override block(...args: Parameters<RateLimiterMemory['block']>) {
    this.fellBack();
    return super.block(...args);
  }
}

/**
 * Counters in Redis through rate-limiter-flexible (atomic scripts), shared by every process. If
 * Redis fails, each limiter falls back to an in-process insurance limiter: fail open to
 * per-process limits, as Stripe's limiters do, rather than refusing traffic or dropping limits.
 * Every decision made that way is reported to `fellBack` (a warning and a metric, rate-limits.ts).
 */
export class RedisLimitStore implements LimitStore {
  private readonly limiters = new Map<string, RateLimiterAbstract>();

  constructor(
    private readonly redis: Redis,
    private readonly fellBack: () => void = () => undefined,
  ) {}

  private limiter(bucket: string, limit: number, windowS: number): RateLimiterAbstract {
    const id = `${bucket}:${limit}:${windowS}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      const options = { keyPrefix: `${REDIS_PREFIX}:${bucket}`, points: limit, duration: windowS };
      limiter = new RateLimiterRedis({
        ...options,
        storeClient: this.redis,
        customIncrTtlLuaScript: ALL_OR_NOTHING_INCREMENT,
        insuranceLimiter: new InsuranceLimiter(options, this.fellBack),
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  async consume(bucket: string, key: string, limit: number, windowS: number, points = 1): Promise<Window> {
    try {
      const res = await this.limiter(bucket, limit, windowS).consume(key, points);
      return { consumed: res.consumedPoints, allowed: true, msBeforeReset: res.msBeforeNext };
    } catch (error) {
      if (!(error instanceof RateLimiterRes)) throw error;
      return { consumed: error.consumedPoints, allowed: false, msBeforeReset: error.msBeforeNext };
    }
  }

  async refund(bucket: string, key: string, limit: number, windowS: number, points = 1): Promise<void> {
    await this.limiter(bucket, limit, windowS)
      .reward(key, points)
      .catch(() => undefined);
  }

  async peek(bucket: string, key: string, limit: number, windowS: number): Promise<Window | null> {
    const res = await this.limiter(bucket, limit, windowS)
      .get(key)
      .catch(() => null);
    return res ? { consumed: res.consumedPoints, allowed: true, msBeforeReset: res.msBeforeNext } : null;
  }

  async block(bucket: string, key: string, limit: number, windowS: number, blockS: number): Promise<void> {
    await this.limiter(bucket, limit, windowS)
      .block(key, blockS)
      .catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => undefined);
  }
}
