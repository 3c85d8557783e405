import { Redis } from 'ioredis';
import {
  RateLimiterMemory,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { Errors } from '../errors/errors.ts';

const WINDOW_S = 60;
const KEY_PREFIX = 'agency-crm:rl';

export interface RateLimitState {
  limit: number;
  remaining: number;
  resetS: number;
}

export interface ConsumeRequest {
  keyId: string;
  organizationId: string;
  requestsPerMinute: number;
  writesPerMinute: number;
  organizationWritesPerMinute: number;
  write: boolean;
}

export interface AuthFailureOptions {
  limit: number;
  windowS: number;
  blockS: number;
}

function resetSeconds(res: RateLimiterRes): number {
  return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
}

/**
 * Per-key and per-organization limits over one-minute windows, plus the failed-auth IP block.
 * The store is memory by default and Redis when REDIS_URL is set, so several API processes share
 * one count. If Redis fails, each process falls back to its own memory count (fail open, as
 * Stripe's limiters do) rather than refusing traffic.
 */
export class RateLimits {
  private readonly limiters = new Map<string, RateLimiterAbstract>();
  private readonly authFailures: RateLimiterAbstract;

  private constructor(
    private readonly redis: Redis | undefined,
    private readonly auth: AuthFailureOptions,
  ) {
    this.authFailures = this.create('auth', auth.limit, auth.windowS);
  }

  static create(redisUrl: string | undefined, auth: AuthFailureOptions): RateLimits {
    const redis =
      redisUrl === undefined
        ? undefined
        : new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, lazyConnect: false });
    // ioredis reconnects by itself; an unhandled 'error' event would crash the process.
    redis?.on('error', () => undefined);
    return new RateLimits(redis, auth);
  }

  get store(): 'memory' | 'redis' {
    return this.redis ? 'redis' : 'memory';
  }

  private create(name: string, points: number, durationS: number): RateLimiterAbstract {
    const options = { keyPrefix: `${KEY_PREFIX}:${name}`, points, duration: durationS };
    if (!this.redis) return new RateLimiterMemory(options);
    return new RateLimiterRedis({
      ...options,
      storeClient: this.redis,
      insuranceLimiter: new RateLimiterMemory(options),
    });
  }

  private limiter(name: string, points: number): RateLimiterAbstract {
    const id = `${name}:${points}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = this.create(name, points, WINDOW_S);
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  /**
   * Counts one request. Writes are checked first against the stricter limits, and points already
   * taken are given back when a later limit refuses, so a refused request never burns budget.
   * Throws 429 RATE_LIMITED or TENANT_RATE_LIMITED; returns the state for the X-RateLimit headers.
   */
  async consume(request: ConsumeRequest): Promise<RateLimitState> {
    const taken: Array<{ limiter: RateLimiterAbstract; key: string }> = [];
    const refund = async () => {
      await Promise.all(taken.map(({ limiter, key }) => limiter.reward(key, 1).catch(() => undefined)));
    };

    if (request.write) {
      if (request.writesPerMinute <= 0) {
        throw Errors.rateLimited('This API key may not write', WINDOW_S, 0);
      }
      const writes = this.limiter('key-writes', request.writesPerMinute);
      try {
        await writes.consume(request.keyId);
        taken.push({ limiter: writes, key: request.keyId });
      } catch (error) {
        if (!(error instanceof RateLimiterRes)) throw error;
        throw Errors.rateLimited(
          `Write limit of ${request.writesPerMinute} per minute exceeded for this API key`,
          resetSeconds(error),
          request.writesPerMinute,
        );
      }
    }

    const total = this.limiter('key', request.requestsPerMinute);
    let state: RateLimitState;
    try {
      const res = await total.consume(request.keyId);
      taken.push({ limiter: total, key: request.keyId });
      state = { limit: request.requestsPerMinute, remaining: res.remainingPoints, resetS: resetSeconds(res) };
    } catch (error) {
      await refund();
      if (!(error instanceof RateLimiterRes)) throw error;
      throw Errors.rateLimited(
        `Rate limit of ${request.requestsPerMinute} requests per minute exceeded for this API key`,
        resetSeconds(error),
        request.requestsPerMinute,
      );
    }

    if (request.write) {
      const orgWrites = this.limiter('org-writes', Math.max(1, request.organizationWritesPerMinute));
      try {
        if (request.organizationWritesPerMinute <= 0) throw new RateLimiterRes(0, WINDOW_S * 1000);
        await orgWrites.consume(request.organizationId);
      } catch (error) {
        await refund();
        if (!(error instanceof RateLimiterRes)) throw error;
        throw Errors.tenantRateLimited(request.organizationWritesPerMinute, resetSeconds(error));
      }
    }
    return state;
  }

  /** Seconds left on the failed-auth block of this address, or 0 when it is not blocked. */
  async blockedFor(ip: string): Promise<number> {
    const res = await this.authFailures.get(ip).catch(() => null);
    if (!res || res.consumedPoints < this.auth.limit) return 0;
    return resetSeconds(res);
  }

  /**
   * Counts a failed authentication from this address. The limit-th failure within the window
   * blocks the address for AUTH_FAILURE_BLOCK_S: every request from it then gets 429.
   */
  async recordAuthFailure(ip: string): Promise<void> {
    try {
      const res = await this.authFailures.consume(ip);
      if (res.consumedPoints >= this.auth.limit) await this.authFailures.block(ip, this.auth.blockS);
    } catch (error) {
      // Already over the limit (a concurrent failure), or the store failed: both leave the block as is.
      if (!(error instanceof RateLimiterRes)) return;
    }
  }

  async close(): Promise<void> {
    if (this.redis) await this.redis.quit().catch(() => undefined);
  }
}
