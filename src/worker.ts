import pino from 'pino';
import { exitOnConfigError, loadConfigOrExit } from './config.ts';
import { databaseOptions, openDatabase } from './db/database.ts';
import { workerJobs } from './jobs.ts';
import { openSecretBox } from './platform/crypto/secrets-key.ts';
import { startJobs } from './platform/jobs/scheduler.ts';
import { serveMetrics } from './platform/metrics/metrics-server.ts';
import { FEATURES } from './features.ts';
import { loggerOptions } from './platform/logging/logger.ts';
import { applyV8Tuning } from './platform/runtime/v8-tuning.ts';
import { runStartSteps } from './startup.ts';

/** A worker-only process: `npm run worker` (run API processes with RUN_WORKER=false beside it). */
async function main() {
  const config = loadConfigOrExit(process.env);
  applyV8Tuning(config);
  const secrets = exitOnConfigError(() => openSecretBox(config));
  const log = pino(loggerOptions(config.logLevel));
  const db = await openDatabase(databaseOptions(config));
  await db.migrate();
  await runStartSteps(db, secrets, log);
  const jobs = startJobs(workerJobs(db, { ...config, log, secrets }), log);
  // The worker's own counters (webhook attempts, ...) where a Prometheus can scrape them.
  const metrics =
    config.workerMetricsPort === null
      ? null
      : await serveMetrics({
          host: config.host,
          port: config.workerMetricsPort,
          adminToken: config.adminToken,
          metrics: FEATURES.flatMap((feature) => feature.metrics?.({ db }) ?? []),
        });
  log.info({ metricsPort: metrics?.port ?? null }, 'worker started');
  // The scheduler's timers do not hold the process open, and a worker has no listening socket: its
  // only other handles are pooled connections, which a database restart closes. Without this the
  // process would exit (code 0) in the middle of its backlog when PostgreSQL restarts.
  const keepAlive = setInterval(() => undefined, 60 * 60_000);

  const shutdown = async () => {
    clearInterval(keepAlive);
    await jobs.stop();
    await metrics?.close();
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

await main();
