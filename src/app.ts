import type { TSchema } from '@fastify/type-provider-typebox';
import Fastify, { LogController, type FastifyInstance, type FastifyPluginAsync } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config.ts';
import type { Database } from './db/database.ts';
import { apiDocument } from './api-document.ts';
import { FEATURES } from './features.ts';
import { mcpRoutes } from './mcp/mcp.routes.ts';
import { mcpToolsOf } from './mcp/mcp.tools.ts';
import { mcpSchemas } from './mcp/mcp.schema.ts';
import { registerAuth, registerBatchCharges } from './platform/auth/auth.plugin.ts';
import { fastifyCookie } from '@fastify/cookie';
import { ConsoleSessions } from './platform/auth/console-sessions.ts';
import { KeyVerifier } from './platform/auth/key-verifier.ts';
import { OrganizationStates } from './platform/auth/organization-states.ts';
import {
  clientErrorHandler,
  frameworkErrors,
  MAX_PARAM_LENGTH,
  registerErrorHandling,
} from './platform/errors/error-handler.ts';
import { batchSchemas } from './platform/http/batch.ts';
import { AJV_OPTIONS, schemaCompilers } from './platform/http/compilers.ts';
import { registerRouteConventions } from './platform/http/conventions.ts';
import { registerInputGuard } from './platform/http/input-guard.ts';
import { registerNotFound } from './platform/http/not-found.ts';
import { registerOpenApi } from './platform/http/openapi.ts';
import { sharedSchemas } from './platform/http/schemas.ts';
import { IN_PROGRESS_WAIT_MS, registerIdempotency } from './platform/idempotency/idempotency.plugin.ts';
import { newId } from './platform/ids/ids.ts';
import { loggerOptions } from './platform/logging/logger.ts';
import { poolMetrics, registerMetrics, replicaMetrics } from './platform/metrics/metrics.ts';
import { RateLimits } from './platform/rate-limit/rate-limits.ts';
import type { RecorderOptions } from './platform/request-logs/recorder.ts';
import { registerRequestLogs } from './platform/request-logs/request-logs.plugin.ts';
import { registerResponseCache } from './platform/http/response-cache.ts';
import type { SecretBox } from './platform/crypto/secret-box.ts';
import { openSecretBox } from './platform/crypto/secrets-key.ts';
import { installFeatures, type AppContext, type FeatureManifest } from './platform/features/manifest.ts';

export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface AppDependencies {
  db: Database;
  /** Where logs go (tests capture them); stdout by default. */
  logStream?: DestinationStream;
  /** What the demo page at /demo/ is told (server.ts fills in the key of the agency it seeds). */
  demoPortal?: AppContext['demoPortal'];
  /** Extra plugins registered after the features (tests use this to exercise platform mechanisms). */
  plugins?: FastifyPluginAsync[];
  /** Extra named schemas those plugins reference. */
  schemas?: TSchema[];
  /** DNS resolver of the webhook URL check (tests resolve made-up names); node:dns by default. */
  lookup?: AppContext['lookup'];
  /** The service's clock (messaging windows); tests inject one to cross the 24-hour boundary. */
  clock?: () => Date;
  /** The process's secrets box (server.ts opens it once); opened from the config when unset. */
  secrets?: SecretBox;
  /** The request-log buffer's sizes and timing (tests make it tiny); the defaults otherwise. */
  requestLogs?: RecorderOptions;
  /** How long a duplicate waits for its first request (IN_PROGRESS_WAIT_MS; tests shorten it). */
  idempotencyWaitMs?: number;
  /** The features served: src/features.ts's list (a test adds one of its own to prove the folds). */
  features?: readonly FeatureManifest[];
}

declare module 'fastify' {
  interface FastifyInstance {
    keyVerifier: KeyVerifier;
    rateLimits: RateLimits;
  }
}

/** Builds the whole service on an open, migrated database. Never listens: server.ts and tests do. */
export async function buildApp(config: Config, deps: AppDependencies): Promise<FastifyInstance> {
  const features = deps.features ?? FEATURES;
  // Scopes (their schema's enum) and events, before any route is compiled or any event recorded.
  installFeatures(features);
  const document = apiDocument(features);
  const options = loggerOptions(config.logLevel);
  const app = Fastify({
    logger: deps.logStream ? { ...options, stream: deps.logStream } : options,
    genReqId: () => newId('req'),
    requestIdHeader: false,
    logController: new LogController({ requestIdLogLabel: 'requestId' }),
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Failures before routing (bad percent-encoding, malformed HTTP) answer in the envelope too.
    frameworkErrors,
    clientErrorHandler,
    trustProxy: config.trustProxy,
    // Fastify's default (0) lets a client that sends a body one byte a minute hold a connection
    // for ever. Node checks the limit every connectionsCheckingInterval, so that follows it.
    requestTimeout: config.requestTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: Math.min(60_000, config.requestTimeoutMs),
      connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.floor(config.requestTimeoutMs / 4))),
      // Checked by the input guard instead, which answers in the envelope (Node's 400 has no body).
      requireHostHeader: false,
    },
    ajv: AJV_OPTIONS,
    schemaController: { compilersFactory: schemaCompilers },
  });

  const verifier = new KeyVerifier(deps.db, app.log);
  const states = new OrganizationStates(deps.db);
  // An organization, agent or key change made here is seen by this process's next request.
  const invalidator = {
    invalidate() {
      verifier.invalidate();
      states.invalidate();
    },
  };
  const limits = RateLimits.create(
    config.redisUrl,
    {
      limit: config.authFailureLimit,
      windowS: config.authFailureWindowS,
      blockS: config.authFailureBlockS,
    },
    app.log,
  );
  app.decorate('keyVerifier', verifier);
  app.decorate('rateLimits', limits);
  // Shared limits from the first request: a start waits up to 2 s for Redis (decision 0016 otherwise).
  app.addHook('onReady', () => limits.connected(2000));
  // What the connection layer had to work around (a pooler dropping prepared statements), said once.
  const stopWarnings = deps.db.onWarning((message) => app.log.warn(message));
  app.addHook('onClose', async () => {
    stopWarnings();
    await verifier.close();
    await limits.close();
  });

  // JSON only: any other body type is a 415 rather than a string the schemas then refuse.
  app.removeContentTypeParser('text/plain');

  // Named schemas in OpenAPI order: the shared ones, each feature's in list order, then the MCP endpoint's.
  for (const schema of [
    ...sharedSchemas,
    ...batchSchemas,
    ...features.flatMap((feature) => feature.schemas ?? []),
    ...mcpSchemas,
    ...(deps.schemas ?? []),
  ]) {
    app.addSchema(schema);
  }
  registerErrorHandling(app);
  registerNotFound(app);
  registerRouteConventions(app);
  await registerOpenApi(app, `http://${config.host}:${config.port}`, document);
  // Parses Cookie headers before the auth hook reads the console's session cookie.
  await app.register(fastifyCookie, { hook: 'onRequest' });
  const consoleSessions = new ConsoleSessions(deps.db, deps.clock);
  const secrets = deps.secrets ?? openSecretBox(config);
  registerAuth(app, {
    verifier,
    limits,
    adminToken: config.adminToken,
    consoleSessions,
    states,
    tokenCredentials: features.flatMap((feature) => feature.credentials?.({ db: deps.db, secrets }) ?? []),
  });
  registerInputGuard(app);
  registerIdempotency(app, deps.db, secrets, {
    inProgressWaitMs: deps.idempotencyWaitMs ?? IN_PROGRESS_WAIT_MS,
  });
  // After the idempotency plugin: a batch's write points are counted after its key is claimed.
  registerBatchCharges(app, limits);
  // Its onResponse hook only buffers a line; the writes are batched off the request path.
  const requestLogs = registerRequestLogs(app, {
    db: deps.db,
    enabled: config.requestLogEnabled,
    recorder: deps.requestLogs,
  });
  // Before the features' routes: their `cache: 'portal'` routes get its hooks as they are added.
  const portalCache = registerResponseCache(app, deps.db, {
    maxBytes: config.portalCacheSizeMb * 1024 * 1024,
    maxAgeS: config.portalCacheMaxAgeS,
  });
  // The pool's gauges only where there is a pool (PostgreSQL), so the embedded database shows no zeros.
  const pool = deps.db.poolStats() === null ? [] : poolMetrics(() => deps.db.poolStats());
  const replicas = deps.db.replicaStatus().length === 0 ? [] : replicaMetrics(() => deps.db.replicaStatus());
  const featureMetrics = features.flatMap((feature) => feature.metrics?.({ db: deps.db }) ?? []);
  registerMetrics(
    app,
    [...limits.metrics, ...requestLogs.metrics, ...portalCache, ...pool, ...replicas, ...featureMetrics],
    document.documentTag,
  );

  const context: AppContext = {
    config,
    db: deps.db,
    verifier: invalidator,
    clock: deps.clock ?? (() => new Date()),
    lookup: deps.lookup,
    demoPortal: deps.demoPortal ?? { publishableKey: null },
    secrets,
    consoleSessions,
  };
  for (const feature of features) {
    for (const plugin of feature.routes ?? []) {
      await app.register(plugin, context);
    }
  }
  await app.register(mcpRoutes, { db: deps.db, config, tools: mcpToolsOf(features) });
  for (const plugin of deps.plugins ?? []) await app.register(plugin);

  return app;
}
