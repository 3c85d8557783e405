/**
 * PostgreSQL failing under traffic, seen from a client of the running service (docs/reliability.md
 * "Faults"): stopped and restarted, its connections killed, frozen. Each time every answer is either
 * a success or a 503 SERVICE_UNAVAILABLE in the error envelope with Retry-After (never a 500, never
 * a hang), and the same process serves again once the database is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DATABASE_RETRY_AFTER_S } from '../../src/platform/errors/errors.ts';
import { createTenant, FAST } from '../helpers/factories.ts';
import { PrivatePostgres } from '../helpers/private-services.ts';
import {
  FAULT_TESTS,
  FULL,
  latencyFigures,
  report,
  serve,
  sleep,
  startTraffic,
  tally,
  type Sample,
  type Served,
} from './support.ts';

/**
 * Fewer clients than pooled connections (10): a 503 can then come only from the fault, never from
 * a request waiting for a connection longer than the shortened connect limit below.
 */
const CLIENTS = 8;
const OUTAGE_MS = FULL ? 10_000 : 2_000;
const TERMINATIONS = FULL ? 10 : 3;
/** Shortened time limits (production: 15 s statement, 10 s connect) so the frozen case fits CI. */
const TIMEOUTS = { statementMs: 2_000, connectMs: 1_000 };
/** The longest a request may take while the database is frozen: statement limit + margin + slack. */
const FROZEN_BOUND_MS = TIMEOUTS.statementMs + 1_000 + 1_500;

/** Every answer is a success or the database's 503 in the envelope; returns the 503s. */
function expectSuccessOr503(samples: readonly Sample[]): Sample[] {
  const unexpected = samples.filter((s) => ![200, 201, 503].includes(s.status));
  expect(unexpected, JSON.stringify(tally(samples))).toEqual([]);
  const unavailable = samples.filter((s) => s.status === 503);
  for (const sample of unavailable) {
    expect(sample.code, JSON.stringify(sample)).toBe('SERVICE_UNAVAILABLE');
    expect(sample.retryAfter, JSON.stringify(sample)).toBe(String(DATABASE_RETRY_AFTER_S));
    expect(sample.envelopeRequestId, JSON.stringify(sample)).toBe(sample.requestId);
  }
  return unavailable;
}

const between = (samples: readonly Sample[], from: number, to: number) =>
  samples.filter((s) => s.at >= from && s.at + s.ms <= to);

describe.skipIf(!FAULT_TESTS)('PostgreSQL faults under traffic (private PostgreSQL)', () => {
  let postgres: PrivatePostgres;
  let service: Served;
  let key: string;

  beforeAll(async () => {
    postgres = await PrivatePostgres.create();
    service = await serve(await postgres.createDatabase('agency'), { timeouts: TIMEOUTS });
    // Neither the key nor the organization throttles the traffic.
    key = (await createTenant(service.app, { org: { writeLimitPerMinute: 100_000 }, secret: FAST })).secret
      .key;
  }, 120_000);

  afterAll(async () => {
    await service?.close();
    await postgres?.destroy();
  });

  const readyz = async () => {
    const response = await fetch(`${service.baseUrl}/readyz`);
    return { status: response.status, retryAfter: response.headers.get('retry-after') };
  };

  it('answers 503 with Retry-After while PostgreSQL is stopped and recovers without a restart', async () => {
    const traffic = startTraffic({ baseUrl: service.baseUrl, key, clients: CLIENTS });
    await sleep(1_000);
    const stopping = traffic.now();
    await postgres.stop('fast');
    const down = traffic.now();
    await sleep(OUTAGE_MS / 2);
    const readyWhileDown = await readyz();
    await sleep(OUTAGE_MS / 2);
    const starting = traffic.now();
    await postgres.start();
    const up = traffic.now();
    await sleep(2_000);
    const samples = await traffic.stop();

    const unavailable = expectSuccessOr503(samples);
    const duringOutage = between(samples, down, starting);
    expect(duringOutage.length).toBeGreaterThan(0);
    expect(duringOutage.every((s) => s.status === 503)).toBe(true);
    expect(readyWhileDown).toEqual({ status: 503, retryAfter: String(DATABASE_RETRY_AFTER_S) });
    // No hang: a refused connection is answered at once.
    const slowest = Math.max(...duringOutage.map((s) => s.ms));
    expect(slowest).toBeLessThan(1_000);

    // The same process recovers: the first success after the restart, and only successes 1 s later.
    const firstSuccess = samples.find((s) => s.at >= up && s.status < 300);
    expect(firstSuccess, JSON.stringify(tally(samples.filter((s) => s.at >= up)))).toBeDefined();
    const settled = samples.filter((s) => s.at >= up + 1_000);
    expect(settled.length).toBeGreaterThan(0);
    expect(settled.filter((s) => s.status >= 300)).toEqual([]);
    expect(await readyz()).toEqual({ status: 200, retryAfter: null });

    report('PostgreSQL stopped (pg_ctl stop -m fast) and started under traffic', {
      clients: CLIENTS,
      outageMs: Math.round(starting - stopping),
      stopTookMs: Math.round(down - stopping),
      startTookMs: Math.round(up - starting),
      answers: tally(samples),
      answersWhileDown: duringOutage.length,
      latencyWhileDownMs: latencyFigures(duringOutage.map((s) => s.ms)),
      unavailable: unavailable.length,
      firstSuccessAfterStartMs: Math.round((firstSuccess?.at ?? 0) + (firstSuccess?.ms ?? 0) - up),
    });
  });

  it('loses at most the requests in flight when pg_terminate_backend kills its connections', async () => {
    const traffic = startTraffic({ baseUrl: service.baseUrl, key, clients: CLIENTS });
    await sleep(1_000);
    let terminated = 0;
    for (let round = 0; round < TERMINATIONS; round++) {
      const rows = await postgres.query<{ n: number }>(
        `SELECT count(pg_terminate_backend(pid))::int AS n FROM pg_stat_activity
         WHERE application_name = 'agency-crm' AND pid <> pg_backend_pid()`,
        'agency',
      );
      terminated += rows[0]?.n ?? 0;
      await sleep(500);
    }
    const lastKill = traffic.now();
    await sleep(1_500);
    const samples = await traffic.stop();

    const unavailable = expectSuccessOr503(samples);
    expect(terminated).toBeGreaterThan(0);
    // Each killed connection fails at most the one request that was using it.
    expect(unavailable.length).toBeLessThanOrEqual(terminated);
    // The pool does not stay broken: everything after the last kill succeeds.
    const after = samples.filter((s) => s.at > lastKill + 200);
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((s) => s.status >= 300)).toEqual([]);
    const [{ connections }] = (await postgres.query<{ connections: number }>(
      `SELECT count(*)::int AS connections FROM pg_stat_activity WHERE application_name = 'agency-crm'`,
      'agency',
    )) as [{ connections: number }];
    expect(connections).toBeGreaterThan(0);

    report('pg_terminate_backend of the service connections under traffic', {
      clients: CLIENTS,
      rounds: TERMINATIONS,
      connectionsTerminated: terminated,
      answers: tally(samples),
      unavailable: unavailable.length,
      connectionsAfter: connections,
    });
  });

  it('answers 503 within its time limits while PostgreSQL is frozen, and recovers after', async () => {
    const traffic = startTraffic({ baseUrl: service.baseUrl, key, clients: CLIENTS });
    await sleep(1_000);
    const freezing = traffic.now();
    await postgres.freeze();
    await sleep(FROZEN_BOUND_MS + 1_000);
    const thawing = traffic.now();
    await postgres.thaw();
    await sleep(2_000);
    const samples = await traffic.stop();

    const unavailable = expectSuccessOr503(samples);
    const frozen = samples.filter((s) => s.at >= freezing && s.at < thawing);
    expect(frozen.filter((s) => s.status === 503).length).toBeGreaterThan(0);
    const slowest = Math.max(...frozen.map((s) => s.ms));
    expect(slowest).toBeLessThan(FROZEN_BOUND_MS);
    const after = samples.filter((s) => s.at > thawing + 1_000);
    expect(after.length).toBeGreaterThan(0);
    expect(after.filter((s) => s.status >= 300)).toEqual([]);

    report('PostgreSQL frozen (SIGSTOP of every server process) under traffic', {
      clients: CLIENTS,
      frozenMs: Math.round(thawing - freezing),
      timeouts: TIMEOUTS,
      answers: tally(samples),
      unavailable: unavailable.length,
      latencyWhileFrozenMs: latencyFigures(frozen.map((s) => s.ms)),
    });
  });
});
