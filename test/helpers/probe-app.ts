import type { FastifyInstance } from 'fastify';
import { probePlugin } from './probe.ts';
import { buildTestApp, testDatabase } from './test-app.ts';

/** A test app with the probe routes mounted. */
export async function buildProbeApp(
  env: Record<string, string> = {},
  deps: { idempotencyWaitMs?: number } = {},
): Promise<FastifyInstance> {
  const db = await testDatabase();
  return buildTestApp(env, { db, plugins: [probePlugin(db)], ...deps });
}
