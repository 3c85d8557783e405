/**
 * Child-process entry: the real service (buildApp on an open, migrated database), as server.ts
 * builds it but without the background worker. PostgreSQL when DATABASE_URL is set, else an
 * in-memory PGlite. Started by bench/lib/child.ts; see bench/README.md.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { dirname } from 'node:path';
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { databaseOptions, openDatabase, queryRows } from '../../src/db/database.ts';
import { applyV8Tuning } from '../../src/platform/runtime/v8-tuning.ts';
import { BENCH_ADMIN_TOKEN, BENCH_SECRETS_KEY, serveChild } from './protocol.ts';
import { captureSql, type CaptureOptions } from './sql-capture.ts';

export interface ServiceServerOptions {
  /** Extra environment for loadConfig (e.g. LOG_LEVEL). */
  env?: Record<string, string>;
  /** Record the first statements matching (after migrating), to compare with a baseline's. */
  captureSql?: CaptureOptions;
  /**
   * A sampling heap profile of what outlives the young generation (objects collected by scavenges left
   * out): from the `from`-th answer to the `to`-th, written to `path` (Chrome DevTools opens it).
   */
  heapProfile?: { path: string; from: number; to: number };
}

/** Samples what scavenges promote between two answer counts (the `memory` scenario's --profile). */
function profilePromoted(
  app: FastifyInstance,
  { path, from, to }: { path: string; from: number; to: number },
) {
  const session = new Session();
  session.connect();
  let answered = 0;
  app.addHook('onResponse', (_request, _reply, done) => {
    answered += 1;
    if (answered === from) {
      // includeObjectsCollectedBy*: V8's sampling options (not in Node's typings).
      const options = {
        samplingInterval: 4096,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: false,
      };
      void session.post('HeapProfiler.startSampling', options as object);
    }
    if (answered === to)
      void session.post('HeapProfiler.stopSampling').then(({ profile }) => {
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, JSON.stringify(profile));
        session.disconnect();
      });
    done();
  });
}

serveChild<ServiceServerOptions>(async (options) => {
  const config = loadConfig({
    ...process.env,
    ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
    SECRETS_KEY: BENCH_SECRETS_KEY,
    LOG_LEVEL: 'silent',
    DATA_DIR: 'memory://',
    ...options.env,
  });
  // As server.ts: V8's pretenuring off unless V8_PRETENURING=true (decision 0227).
  applyV8Tuning(config);
  // As server.ts opens it: DATABASE_PREPARED_STATEMENTS, DATABASE_READ_URL, ... apply (the `scaling` scenario).
  const db = await openDatabase(databaseOptions(config));
  await db.migrate();
  if (options.captureSql) captureSql(options.captureSql);
  const [version] = await db.systemTx((tx) =>
    queryRows<{ version: string }>(tx, sql`SELECT version() AS version`),
  );
  const app = await buildApp(config, { db });
  if (options.heapProfile) profilePromoted(app, options.heapProfile);
  // BENCH_SERVICE_DELAY_MS: every request costs that much more CPU (a busy wait, as slower code would:
  // an idle timer would hide behind the other connections' requests), a deliberately slowed build that
  // the guard must catch (bench/scenarios/guard.ts); never set otherwise.
  const delayMs = Number(process.env.BENCH_SERVICE_DELAY_MS ?? 0);
  if (delayMs > 0) {
    app.addHook('onRequest', (_request, _reply, done) => {
      const until = performance.now() + delayMs;
      while (performance.now() < until);
      done();
    });
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    port: address.port,
    info: { database: db.kind, databaseVersion: version?.version ?? 'unknown', logLevel: config.logLevel },
    async close() {
      await app.close();
      await db.close();
    },
  };
});
