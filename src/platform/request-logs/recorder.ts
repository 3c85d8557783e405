// Request logs (issue 22, decision 0213): one line per /v1 and /mcp request of an organization, kept
// in request_logs for the developer console. Recording is off the request path: the response hook
// only pushes a small object onto an in-process buffer; a timer writes the buffer in multi-row
// INSERTs. Lines that cannot be written in time are dropped and counted, never waited for.
import { Counter, type Metric } from 'prom-client';
import type { Database } from '../../db/database.ts';
import { sql, type SQL } from 'drizzle-orm';
import type { Logger } from '../logging/logger.ts';

/** One request as request_logs keeps it: no body, no query string, no personal data. */
export interface RequestLogLine {
  organizationId: string;
  at: Date;
  requestId: string;
  keyId: string | null;
  keyPrefix: string | null;
  method: string;
  path: string;
  operationId: string | null;
  mcpTool: string | null;
  status: number;
  errorCode: string | null;
  errorMessage: string | null;
  latencyMs: number;
  ip: string | null;
}

export interface RecorderOptions {
  /** How often the buffer is written (ms). */
  flushIntervalMs?: number;
  /** Rows per INSERT; a buffer this full is written without waiting for the timer. */
  batchRows?: number;
  /** Lines the buffer holds at most; past it, new lines are dropped (the database is behind). */
  maxBuffered?: number;
}

export const REQUEST_LOG_DEFAULTS = { flushIntervalMs: 500, batchRows: 500, maxBuffered: 10_000 } as const;

/**
 * The process's request-log buffer. `record` never waits and never throws; `flush` writes what is
 * buffered (one flush at a time: a slow database fills the buffer, and the buffer's bound drops the
 * excess instead of queueing writes or memory without end). A batch whose INSERT fails is dropped:
 * retrying it would hold the next batches behind a database that is already failing.
 */
export class RequestLogRecorder {
  readonly written = new Counter({
    name: 'request_logs_written_total',
    help: 'Request log lines written to request_logs by this process',
    registers: [],
  });
  readonly dropped = new Counter({
    name: 'request_logs_dropped_total',
    help: 'Request log lines dropped by this process: buffer full (the database was slow) or a failed write',
    registers: [],
  });

  private buffer: RequestLogLine[] = [];
  private flushing: Promise<void> | null = null;
  private readonly timer: NodeJS.Timeout | null;
  private readonly batchRows: number;
  private readonly maxBuffered: number;

  constructor(
    private readonly db: Database,
    private readonly log: Pick<Logger, 'warn'>,
    options: RecorderOptions & { timer?: boolean } = {},
  ) {
    this.batchRows = options.batchRows ?? REQUEST_LOG_DEFAULTS.batchRows;
    this.maxBuffered = options.maxBuffered ?? REQUEST_LOG_DEFAULTS.maxBuffered;
    const interval = options.flushIntervalMs ?? REQUEST_LOG_DEFAULTS.flushIntervalMs;
    // unref'd: the buffer never keeps a process alive; close() writes what is left.
    // A tick while a write is still running does nothing: the lines wait in the (bounded) buffer.
    const tick = () => {
      if (this.flushing === null && this.buffer.length > 0) void this.flush();
    };
    this.timer = options.timer === false ? null : setInterval(tick, interval);
    this.timer?.unref();
  }

  /** The counters GET /metrics shows. */
  get metrics(): Metric[] {
    return [this.written, this.dropped];
  }

  /** Lines waiting to be written. */
  get buffered(): number {
    return this.buffer.length;
  }

  /** Buffers one line (the request path's only cost); drops and counts it when the buffer is full. */
  record(line: RequestLogLine): void {
    if (this.buffer.length >= this.maxBuffered) {
      this.dropped.inc();
      return;
    }
    this.buffer.push(line);
    if (this.buffer.length >= this.batchRows && this.flushing === null) void this.flush();
  }

  /**
   * Writes every buffered line, `batchRows` per INSERT, each in its own system transaction. Resolves
   * when the buffer is empty or what was in it has been written or dropped; a flush already running
   * is waited for first, then what came in meanwhile is written too. Never rejects.
   */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.buffer.length === 0) return;
    this.flushing = this.writeBuffered().finally(() => {
      this.flushing = null;
    });
    await this.flushing;
  }

  /** Stops the timer and writes what is left (the app's onClose). */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.flush();
  }

  private async writeBuffered(): Promise<void> {
    const lines = this.buffer;
    this.buffer = [];
    for (let start = 0; start < lines.length; start += this.batchRows) {
      const batch = lines.slice(start, start + this.batchRows);
      try {
        await this.db.systemTx((tx) => tx.execute(insertLines(batch)));
        this.written.inc(batch.length);
      } catch (error) {
        this.dropped.inc(batch.length);
        this.log.warn({ err: error, lines: batch.length }, 'could not write request log lines: dropped');
      }
    }
  }
}

const column = <T>(lines: readonly RequestLogLine[], pick: (line: RequestLogLine) => T) =>
  sql.param(lines.map(pick));

/**
 * One INSERT of many lines as 14 array parameters (`unnest`): a constant statement text whatever the
 * batch size, instead of 14 parameters per row for both sides to build and parse (bench/README.md).
 */
function insertLines(lines: readonly RequestLogLine[]): SQL {
  return sql`
    INSERT INTO request_logs (organization_id, at, request_id, key_id, key_prefix, method, path,
      operation_id, mcp_tool, status, error_code, error_message, latency_ms, ip)
    SELECT * FROM unnest(
      ${column(lines, (l) => l.organizationId)}::text[],
      ${column(lines, (l) => l.at.toISOString())}::timestamptz[],
      ${column(lines, (l) => l.requestId)}::text[],
      ${column(lines, (l) => l.keyId)}::text[],
      ${column(lines, (l) => l.keyPrefix)}::text[],
      ${column(lines, (l) => l.method)}::text[],
      ${column(lines, (l) => l.path)}::text[],
      ${column(lines, (l) => l.operationId)}::text[],
      ${column(lines, (l) => l.mcpTool)}::text[],
      ${column(lines, (l) => l.status)}::int[],
      ${column(lines, (l) => l.errorCode)}::text[],
      ${column(lines, (l) => l.errorMessage)}::text[],
      ${column(lines, (l) => l.latencyMs)}::int[],
      ${column(lines, (l) => l.ip)}::text[])`;
}
