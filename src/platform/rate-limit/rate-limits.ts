import { Redis } from 'ioredis';
import { Counter, type Metric } from 'prom-client';
import { Errors } from '../errors/errors.ts';
import type { Logger } from '../logging/logger.ts';
import { MemoryLimitStore, RedisLimitStore, type LimitStore, type Window } from './stores.ts';

/** Every limit counts over one-minute fixed windows. */
export const WINDOW_S = 60;

/** The quota policies of draft-ietf-httpapi-ratelimit-headers, named as the headers and GET /v1/rate-limits name them. */
export type PolicyName = 'key' | 'key-writes' | 'organization-writes';

/** One policy as it stands: `remaining` of `limit` in the current window, which ends in `resetSeconds`. */
export interface PolicyState {
  name: PolicyName;
  limit: number;
  remaining: number;
  windowSeconds: number;
  /** Seconds until the current window ends; 0 when nothing was counted in it yet (the quota is whole). */
  resetSeconds: number;
}

export interface RateLimitState {
  limit: number;
  remaining: number;
  resetS: number;
  /** The policies this request was counted against (reads: the key's; writes: all three). */
  counted: PolicyState[];
  /** Every policy that applies to the key, for RateLimit-Policy. */
  policies: { name: PolicyName; limit: number }[];
}

/** The limits of one key and its organization (the caller's). */
export interface KeyLimits {
  keyId: string;
  /** What the messages call the credential ("this API key" when unset). */
  label?: string;
  organizationId: string;
  requestsPerMinute: number;
  writesPerMinute: number;
  organizationWritesPerMinute: number;
}

export interface ConsumeRequest extends KeyLimits {
  write: boolean;
}

/** The store bucket and the limited thing of each policy. */
const BUCKETS: Record<PolicyName, { bucket: string; of: (limits: KeyLimits) => string }> = {
  key: { bucket: 'key', of: (limits) => limits.keyId },
  'key-writes': { bucket: 'key-writes', of: (limits) => limits.keyId },
  'organization-writes': { bucket: 'org-writes', of: (limits) => limits.organizationId },
};

/** The policies that apply to a key: a key that may not write has only its request limit. */
function policiesOf(limits: KeyLimits): { name: PolicyName; limit: number }[] {
  const policies: { name: PolicyName; limit: number }[] = [{ name: 'key', limit: limits.requestsPerMinute }];
  if (limits.writesPerMinute > 0) {
    policies.push({ name: 'key-writes', limit: limits.writesPerMinute });
    if (limits.organizationWritesPerMinute > 0) {
      policies.push({ name: 'organization-writes', limit: limits.organizationWritesPerMinute });
    }
  }
  return policies;
}

function policyState(name: PolicyName, limit: number, window: Window | null): PolicyState {
  return {
    name,
    limit,
    remaining: window ? Math.max(0, limit - window.consumed) : limit,
    windowSeconds: WINDOW_S,
    resetSeconds: window ? resetSeconds(window) : 0,
  };
}

/**
 * The structured-field headers of draft-ietf-httpapi-ratelimit-headers: `RateLimit-Policy` lists the
 * policies of the key (`"key";q=60;w=60, ...`), `RateLimit` the counted one closest to exhaustion
 * (`"key";r=42;t=18`).
 */
export function rateLimitHeaders(state: RateLimitState): Record<string, string> {
  const closest = state.counted.reduce((a, b) => (b.remaining < a.remaining ? b : a));
  return {
    'ratelimit-policy': state.policies.map((p) => `"${p.name}";q=${p.limit};w=${WINDOW_S}`).join(', '),
    ratelimit: `"${closest.name}";r=${closest.remaining};t=${closest.resetSeconds}`,
  };
}

export interface AuthFailureOptions {
  limit: number;
  windowS: number;
  blockS: number;
}

function resetSeconds(window: Window): number {
  return Math.max(1, Math.ceil(window.msBeforeReset / 1000));
}

/**
 * Watches the shared store: every limit decided in process memory because Redis failed is counted
 * (`rate_limit_fallbacks_total`); the first one of an outage logs a warning, and Redis answering
 * again logs that shared limits resumed (docs/decisions/0016-redis-unavailable.md).
 */
class RedisFallbackMonitor {
  private degraded = false;
  readonly fallbacks = new Counter({
    name: 'rate_limit_fallbacks_total',
    help: 'Rate-limit decisions made with per-process counters because Redis did not answer',
    registers: [],
  });

  constructor(private readonly log: Logger | undefined) {}

  fellBack(): void {
    this.fallbacks.inc();
    if (this.degraded) return;
    this.degraded = true;
    this.log?.warn(
      'Redis is unreachable: rate limits fall back to per-process counters until it answers again',
    );
  }

  reconnected(): void {
    if (!this.degraded) return;
    this.degraded = false;
    this.log?.info('Redis answers again: rate limits are shared again');
  }
}

/**
 * Per-key and per-organization limits over one-minute windows, plus the failed-auth IP block, in
 * process memory by default and in Redis when REDIS_URL is set (several API processes then share
 * one count; while Redis is down, each process counts on its own).
 */
export class RateLimits {
  private constructor(
    private readonly limits: LimitStore,
    private readonly auth: AuthFailureOptions,
    readonly store: 'memory' | 'redis',
    /** Metrics for the app's registry (GET /metrics). */
    readonly metrics: Metric[] = [],
    private readonly redis?: Redis,
  ) {}

  /**
   * Waits until Redis answers, for at most `timeoutMs` (app start: a process taking requests before its
   * connection is up would count them on its own). A Redis that stays down only delays the start.
   */
  async connected(timeoutMs: number): Promise<void> {
    const redis = this.redis;
    if (!redis || redis.status === 'ready') return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      new Promise<void>((resolve) => redis.once('ready', () => resolve())),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
    ]);
    clearTimeout(timer);
  }

  static create(redisUrl: string | undefined, auth: AuthFailureOptions, log?: Logger): RateLimits {
    if (redisUrl === undefined) return new RateLimits(new MemoryLimitStore(), auth, 'memory');
    // No offline queue: while Redis is down a command fails at once (and the insurance limiter
    // decides) instead of waiting for a reconnection with the request on hold.
    const redis = new Redis(redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1 });
    const monitor = new RedisFallbackMonitor(log);
    // ioredis reconnects by itself; an unhandled 'error' event would crash the process.
    redis.on('error', () => undefined);
    redis.on('ready', () => monitor.reconnected());
    return new RateLimits(
      new RedisLimitStore(redis, () => monitor.fellBack()),
      auth,
      'redis',
      [monitor.fallbacks],
      redis,
    );
  }

  /**
   * Counts one request. Writes are checked first against the stricter limits, and points already
   * taken are given back when a later limit refuses, so a refused request never burns budget.
   * Throws 429 RATE_LIMITED or TENANT_RATE_LIMITED; returns the state for the X-RateLimit headers.
   */
  async consume(request: ConsumeRequest): Promise<RateLimitState> {
    const { keyId, write } = request;
    const label = request.label ?? 'this API key';
    const counted: PolicyState[] = [];
    if (write) {
      if (request.writesPerMinute <= 0)
        throw Errors.rateLimited(
          `${label[0]?.toUpperCase()}${label.slice(1)} may not write`,
          WINDOW_S,
          0,
          'key-writes',
        );
      const writes = await this.limits.consume('key-writes', keyId, request.writesPerMinute, WINDOW_S);
      if (!writes.allowed) {
        throw Errors.rateLimited(
          `Write limit of ${request.writesPerMinute} per minute exceeded for ${label}`,
          resetSeconds(writes),
          request.writesPerMinute,
          'key-writes',
        );
      }
      counted.push(policyState('key-writes', request.writesPerMinute, writes));
    }

    const total = await this.limits.consume('key', keyId, request.requestsPerMinute, WINDOW_S);
    if (!total.allowed) {
      if (write) await this.limits.refund('key-writes', keyId, request.writesPerMinute, WINDOW_S);
      throw Errors.rateLimited(
        `Rate limit of ${request.requestsPerMinute} requests per minute exceeded for ${label}`,
        resetSeconds(total),
        request.requestsPerMinute,
        'key',
      );
    }
    const keyState = policyState('key', request.requestsPerMinute, total);
    counted.unshift(keyState);
    const state: RateLimitState = {
      limit: request.requestsPerMinute,
      remaining: keyState.remaining,
      resetS: resetSeconds(total),
      counted,
      policies: policiesOf(request),
    };
    if (!write) return state;

    const orgLimit = request.organizationWritesPerMinute;
    const orgWrites =
      orgLimit > 0
        ? await this.limits.consume('org-writes', request.organizationId, orgLimit, WINDOW_S)
        : null;
    if (!orgWrites?.allowed) {
      await Promise.all([
        this.limits.refund('key-writes', keyId, request.writesPerMinute, WINDOW_S),
        this.limits.refund('key', keyId, request.requestsPerMinute, WINDOW_S),
      ]);
      throw Errors.tenantRateLimited(orgLimit, orgWrites ? resetSeconds(orgWrites) : WINDOW_S);
    }
    counted.push(policyState('organization-writes', orgLimit, orgWrites));
    return state;
  }

  /**
   * Counts `points` more write points for a write `consume` already counted (a batch: its size is
   * known only once its body is read), against `key-writes` and `organization-writes`, all or none.
   * Refused: nothing of the request stays counted (the points `consume` took are given back too),
   * then 429 naming the refusing policy. Returns the state with the write policies after the charge.
   */
  async chargeWrites(request: KeyLimits, state: RateLimitState, points: number): Promise<RateLimitState> {
    if (points <= 0) return state;
    const { keyId, organizationId } = request;
    const total = points + 1;
    const writes = await this.limits.consume('key-writes', keyId, request.writesPerMinute, WINDOW_S, points);
    if (!writes.allowed) {
      await this.giveBack(request, state);
      throw Errors.rateLimited(
        `Write limit of ${request.writesPerMinute} per minute exceeded for this API key: this request counts ${total} writes`,
        resetSeconds(writes),
        request.writesPerMinute,
        'key-writes',
      );
    }
    // `consume` refused the write already when the organization may not write at all (a limit of 0).
    const orgLimit = request.organizationWritesPerMinute;
    const orgWrites = await this.limits.consume('org-writes', organizationId, orgLimit, WINDOW_S, points);
    if (!orgWrites.allowed) {
      await this.limits.refund('key-writes', keyId, request.writesPerMinute, WINDOW_S, points);
      await this.giveBack(request, state);
      throw Errors.tenantRateLimited(orgLimit, resetSeconds(orgWrites));
    }
    const after: Partial<Record<PolicyName, PolicyState>> = {
      'key-writes': policyState('key-writes', request.writesPerMinute, writes),
      'organization-writes': policyState('organization-writes', orgLimit, orgWrites),
    };
    return { ...state, counted: state.counted.map((policy) => after[policy.name] ?? policy) };
  }

  /** Gives back the point `consume` counted on each policy of `state` (a later charge refused the request). */
  private async giveBack(request: KeyLimits, state: RateLimitState): Promise<void> {
    await Promise.all(
      state.counted.map(({ name, limit }) => {
        const { bucket, of } = BUCKETS[name];
        return this.limits.refund(bucket, of(request), limit, WINDOW_S);
      }),
    );
  }

  /** Every policy that applies to a key, from the live counters (shared through Redis when configured). */
  async describe(limits: KeyLimits): Promise<PolicyState[]> {
    return Promise.all(
      policiesOf(limits).map(async ({ name, limit }) => {
        const { bucket, of } = BUCKETS[name];
        return policyState(name, limit, await this.limits.peek(bucket, of(limits), limit, WINDOW_S));
      }),
    );
  }

  /** The organization's shared write policy as it stands, whichever key last wrote (the console's view). */
  async describeOrganizationWrites(organizationId: string, limit: number): Promise<PolicyState> {
    const { bucket } = BUCKETS['organization-writes'];
    return policyState(
      'organization-writes',
      limit,
      await this.limits.peek(bucket, organizationId, limit, WINDOW_S),
    );
  }

  /** Seconds left on the failed-auth block of this address, or 0 when it is not blocked. */
  async blockedFor(ip: string): Promise<number> {
    const window = await this.limits.peek('auth', ip, this.auth.limit, this.auth.windowS);
    if (!window || window.consumed < this.auth.limit) return 0;
    return resetSeconds(window);
  }

  /**
   * Counts a failed authentication from this address. The limit-th failure within the window
   * blocks the address for AUTH_FAILURE_BLOCK_S: every request from it then gets 429.
   */
  async recordAuthFailure(ip: string): Promise<void> {
    const { limit, windowS, blockS } = this.auth;
    const window = await this.limits.consume('auth', ip, limit, windowS);
    if (window.consumed >= limit) await this.limits.block('auth', ip, limit, windowS, blockS);
  }

  async close(): Promise<void> {
    await this.limits.close();
  }
}
