import { mintConsoleLink } from './features/console/index.ts';
import { ConsoleSessions } from './platform/auth/console-sessions.ts';
import { buildApp } from './app.ts';
import { exitOnConfigError, loadConfigOrExit, type Config } from './config.ts';
import { databaseOptions, openDatabase } from './db/database.ts';
import { seedDemoIfEmpty, type DemoPortalSettings, type DemoSeed } from './features/demo/index.ts';
import { workerJobs } from './jobs.ts';
import { openSecretBox } from './platform/crypto/secrets-key.ts';
import { startJobs } from './platform/jobs/scheduler.ts';
import { applyV8Tuning } from './platform/runtime/v8-tuning.ts';
import { runStartSteps } from './startup.ts';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1']);

/**
 * On the embedded database (development and demos only: production refuses it) and a loopback
 * address, webhooks may target a receiver on this machine unless WEBHOOK_ALLOW_PRIVATE_URLS says
 * otherwise, so the tour's local receiver (docs/tour.md) works without a restart (decision 0171).
 */
function withEmbeddedDefaults(config: Config, env: NodeJS.ProcessEnv): Config {
  const localDemo = config.databaseUrl === undefined && LOOPBACK_HOSTS.has(config.host);
  if (!localDemo || (env.WEBHOOK_ALLOW_PRIVATE_URLS ?? '').trim() !== '') return config;
  return Object.freeze({ ...config, webhookAllowPrivateUrls: true });
}

/** The tour's shell variables, as one line to paste (docs/tour.md). */
function tourVariables(config: Config, baseUrl: string, seed: DemoSeed): string {
  // A token the operator set is theirs to paste: the line names the variable instead of printing it.
  const admin = config.adminTokenGenerated ? config.adminToken : '"$ADMIN_TOKEN"';
  return `  export BASE=${baseUrl} ADMIN=${admin} SK=${seed.secretKey} PK=${seed.publishableKey}`;
}

function banner(config: Config, baseUrl: string, seed: DemoSeed | null, consoleUrl: string | null): string {
  const lines = [
    '',
    `agency-crm listening on ${baseUrl}`,
    `  API reference: ${baseUrl}/docs`,
    `  MCP endpoint:  ${baseUrl}/mcp   (Authorization: Bearer <secret key>; docs/mcp.md)`,
    `  demo portal:   ${baseUrl}/demo/`,
  ];
  lines.push(`  database: ${config.databaseUrl ? 'PostgreSQL' : `embedded PGlite (${config.dataDir})`}`);
  if (config.adminTokenGenerated) lines.push(`  admin token (generated for this run): ${config.adminToken}`);
  if (config.webhookAllowPrivateUrls) {
    lines.push(
      '  webhooks: local and private receiver URLs allowed (WEBHOOK_ALLOW_PRIVATE_URLS=false to refuse)',
    );
  }
  if (seed) {
    lines.push(
      '',
      `Demo agency "${seed.organization.name}" (${seed.organization.plan}) created: ${seed.organization.id}`,
      `  publishable key: ${seed.publishableKey}`,
      `  secret key:      ${seed.secretKey}   (every scope, access level 3)`,
      ...(consoleUrl
        ? [`  developer console (one-time link, 15 minutes; docs/console.md): ${consoleUrl}`]
        : []),
      '',
      'Try it:',
      `  curl -s ${baseUrl}/v1/me -H 'X-API-Key: ${seed.secretKey}'`,
      `  curl -s '${baseUrl}/v1/properties?city=malaga&sortBy=price' -H 'X-API-Key: ${seed.publishableKey}'`,
      `  curl -s ${baseUrl}/admin/v1/organizations -H 'Authorization: Bearer ${config.adminToken}'`,
      `  claude mcp add --transport http agency-crm ${baseUrl}/mcp --header 'Authorization: Bearer ${seed.secretKey}'`,
      '',
      'The tour (docs/tour.md), in the shell you paste it into, starts with:',
      tourVariables(config, baseUrl, seed),
    );
  } else if (config.demoSeed) {
    lines.push(
      '',
      'The database already has organizations; create fresh demo keys with: npx agency-crm seed demo',
    );
  }
  return lines.join('\n') + '\n';
}

async function main() {
  const config = withEmbeddedDefaults(loadConfigOrExit(process.env), process.env);
  applyV8Tuning(config);
  const secrets = exitOnConfigError(() => openSecretBox(config));

  const db = await openDatabase(databaseOptions(config));
  await db.migrate();
  const demoPortal: DemoPortalSettings = { publishableKey: null };
  const app = await buildApp(config, { db, demoPortal, secrets });
  await runStartSteps(db, secrets, app.log);
  const seed = config.demoSeed ? await seedDemoIfEmpty({ db, verifier: app.keyVerifier }) : null;
  // The demo page served at /demo/ starts with the seeded agency's publishable key.
  if (seed) demoPortal.publishableKey = seed.publishableKey;
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const jobs = config.runWorker
    ? // The address it listens on (PORT=0 picks one): emails link there when PUBLIC_URL is unset.
      startJobs(workerJobs(db, { ...config, host, port, log: app.log, secrets }), app.log)
    : null;
  const baseUrl = `http://${host}:${port}`;
  const consoleUrl = seed
    ? (
        await mintConsoleLink(
          { db, consoleSessions: new ConsoleSessions(db), publicUrl: config.publicUrl },
          seed.organization.id,
          config.publicUrl ?? baseUrl,
        )
      ).url
    : null;
  process.stdout.write(banner(config, baseUrl, seed, consoleUrl));

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    app.log.info({ signal }, 'shutting down');
    await app.close();
    await jobs?.stop();
    await db.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

await main();
