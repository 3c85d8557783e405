import type { FastifyInstance } from 'fastify';
import { PROBE_FEATURES } from './probe.ts';
import { buildTestApp, testDatabase } from './test-app.ts';

/** A test app with the probe routes mounted. */
export async function buildProbeApp(
  env: Record<string, string> = {},
  deps: { idempotencyWaitMs?: number } = {},
): Promise<FastifyInstance> {
  const db = await testDatabase();
  return buildTestApp(env, { db, features: PROBE_FEATURES, ...deps });
}
