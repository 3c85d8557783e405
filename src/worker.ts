import pino from 'pino';
import { loadConfigOrExit } from './config.ts';
import { openDatabase } from './db/database.ts';
import { workerJobs } from './jobs.ts';
import { startJobs } from './platform/jobs/scheduler.ts';
import { loggerOptions } from './platform/logging/logger.ts';

/** A worker-only process: `npm run worker` (run API processes with RUN_WORKER=false beside it). */
async function main() {
  const config = loadConfigOrExit(process.env);
  const log = pino(loggerOptions(config.logLevel));
  const db = await openDatabase(config);
  await db.migrate();
  const jobs = startJobs(workerJobs(db, { ...config, log }), log);
  log.info('worker started');

  const shutdown = async () => {
    await jobs.stop();
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}

await main();
