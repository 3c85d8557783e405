import type { FastifyBaseLogger } from 'fastify';
import type { Database } from '../../db/database.ts';
import { appendEvents, type NewAnalyticsEvent } from './analytics.store.ts';

export interface AnalyticsWriterOptions {
  /** Rows per INSERT; reaching it in the buffer also starts a write at once. */
  batchSize?: number;
  /** The buffer is written at least this often. */
  flushIntervalMs?: number;
  /** While the database is unreachable, the oldest events beyond this many are dropped. */
  maxBuffered?: number;
}

const MAX_BACKOFF_MS = 30_000;
const DROP_LOG_INTERVAL_MS = 10_000;

/**
 * Buffers accepted portal events in memory and writes them in batches off the request path: one
 * statement per batch (raw rows + daily counts) in a system transaction, when the buffer reaches
 * `batchSize` or every `flushIntervalMs`, whichever comes first; one write at a time.
 *
 * Durability: events accepted but not yet written are lost if the process is killed (SPEC: the
 * response "does not confirm storage"); a clean stop (`close()`, the app's onClose) writes them
 * all. A failed batch goes back to the front of the buffer and is retried with a growing delay;
 * the process never crashes for it and requests never wait for it.
 */
export class AnalyticsWriter {
  private buffer: NewAnalyticsEvent[] = [];
  private running: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout;
  private readonly batchSize: number;
  private readonly maxBuffered: number;
  private failures = 0;
  /** No automatic write before this time (ms) after a failure; flush() ignores it. */
  private retryAt = 0;
  private lastDropLogAt = 0;
  private closed = false;
  /** Events dropped because the buffer overflowed while the database was failing. */
  dropped = 0;

  constructor(
    private readonly db: Database,
    private readonly log: FastifyBaseLogger,
    options: AnalyticsWriterOptions = {},
  ) {
    this.batchSize = options.batchSize ?? 500;
    this.maxBuffered = options.maxBuffered ?? 100_000;
    this.timer = setInterval(() => this.writeSoon(), options.flushIntervalMs ?? 1_000);
    // The timer alone must not keep a process (or a test run) alive.
    this.timer.unref();
  }

  /** Events accepted and not yet written. */
  get pending(): number {
    return this.buffer.length;
  }

  /** Takes one event; never waits for the database. */
  enqueue(event: NewAnalyticsEvent): void {
    this.buffer.push(event);
    if (this.buffer.length > this.maxBuffered) this.dropOldest(this.buffer.length - this.maxBuffered);
    // After close (a request that was still in flight), nothing else would write it: go now.
    if (this.buffer.length >= this.batchSize || this.closed) this.writeSoon();
  }

  /** Writes everything buffered now; rejects when a batch fails (the rows stay buffered). */
  async flush(): Promise<void> {
    if (this.running) await this.running.catch(() => undefined);
    await this.drain();
  }

  /** Stops the timer and writes what is left; logs (never throws) when the database refuses. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    try {
      await this.flush();
    } catch {
      this.log.error({ lost: this.buffer.length }, 'analytics events could not be written before shutdown');
    }
  }

  private writeSoon(): void {
    if (this.running || this.buffer.length === 0 || Date.now() < this.retryAt) return;
    // Already logged by drain(): a background write has nobody else to tell.
    this.drain().catch(() => undefined);
  }

  /** The single writer: batches until the buffer is empty or a batch fails. */
  private drain(): Promise<void> {
    this.running ??= this.writeAll().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async writeAll(): Promise<void> {
    while (this.buffer.length > 0) {
      const batch = this.buffer.splice(0, this.batchSize);
      try {
        await this.db.systemTx((tx) => appendEvents(tx, batch));
      } catch (error) {
        // Back in front, so the order survives and the overflow drops the oldest first.
        this.buffer.unshift(...batch);
        if (this.buffer.length > this.maxBuffered) this.dropOldest(this.buffer.length - this.maxBuffered);
        this.failures += 1;
        const delay = Math.min(MAX_BACKOFF_MS, 1_000 * 2 ** (this.failures - 1));
        this.retryAt = Date.now() + delay;
        // The driver's own error, not Drizzle's wrapper: that one quotes the whole batch (referrers included).
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause : error;
        this.log.error(
          { err: cause, pending: this.buffer.length, failures: this.failures, retryInMs: delay },
          'analytics batch failed; events kept for a retry',
        );
        throw error;
      }
      if (this.failures > 0) {
        this.log.info({ failures: this.failures }, 'analytics batches written again');
        this.failures = 0;
        this.retryAt = 0;
      }
    }
  }

  private dropOldest(count: number): void {
    this.buffer.splice(0, count);
    this.dropped += count;
    const now = Date.now();
    if (now - this.lastDropLogAt >= DROP_LOG_INTERVAL_MS) {
      this.lastDropLogAt = now;
      this.log.warn(
        { dropped: this.dropped, maxBuffered: this.maxBuffered },
        'analytics buffer full while the database fails: oldest events dropped',
      );
    }
  }
}
