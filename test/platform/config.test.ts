import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.ts';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      databaseUrl: undefined,
      dataDir: './data',
      redisUrl: undefined,
      adminTokenGenerated: true,
      demoSeed: true,
      webhookRetryDelaysMs: [0, 5000, 30000, 120000, 600000],
      webhookTimeoutMs: 10000,
      webhookAllowPrivateUrls: false,
      authFailureLimit: 20,
      authFailureWindowS: 60,
      authFailureBlockS: 300,
      trustProxy: false,
      messagingProvider: 'sandbox',
      runWorker: true,
      v8Pretenuring: false,
      usageDetailRetentionDays: 90,
    });
    expect(config.adminToken).toMatch(/^adm_/);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads USAGE_DETAIL_RETENTION_DAYS', () => {
    expect(loadConfig({ USAGE_DETAIL_RETENTION_DAYS: '30' }).usageDetailRetentionDays).toBe(30);
  });

  it('reads the database settings, read replicas included', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://primary/agency',
      DATABASE_POOL_SIZE: '25',
      DATABASE_PREPARED_STATEMENTS: 'false',
      DATABASE_READ_URL: 'postgres://replica-1/agency, postgresql://replica-2:6432/agency',
      DATABASE_READ_MAX_LAG_MS: '250',
    });
    expect(config).toMatchObject({
      databasePoolSize: 25,
      databasePreparedStatements: false,
      databaseReadUrls: ['postgres://replica-1/agency', 'postgresql://replica-2:6432/agency'],
      databaseReadMaxLagMs: 250,
    });
    expect(loadConfig({}).databaseReadUrls).toEqual([]);
    expect(loadConfig({}).databaseReadMaxLagMs).toBe(1000);
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://p/a', DATABASE_READ_URL: 'postgres://r/a,http://r/b' }),
    ).toThrow(/DATABASE_READ_URL must use postgres: or postgresql:, got http:/);
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://p/a', DATABASE_READ_URL: 'postgres://r/a,,' }),
    ).toThrow(/DATABASE_READ_URL has an empty entry at position 2/);
    expect(() => loadConfig({ DATABASE_READ_URL: 'postgres://r/a' })).toThrow(
      /DATABASE_READ_URL needs DATABASE_URL/,
    );
  });

  it('turns the demo seed off by default on PostgreSQL', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://localhost/x' }).demoSeed).toBe(false);
  });

  it.each([
    ['PORT', 'eighty', /PORT must be a whole number/],
    ['PORT', '70000', /PORT must be between 0 and 65535/],
    ['DATABASE_URL', 'mysql://x', /DATABASE_URL must use postgres: or postgresql:/],
    ['DATABASE_URL', 'not a url', /DATABASE_URL must be a URL/],
    ['REDIS_URL', 'http://x', /REDIS_URL must use redis:/],
    ['DEMO_SEED', 'yes', /DEMO_SEED must be true or false/],
    ['WEBHOOK_RETRY_DELAYS_MS', '0,5s', /WEBHOOK_RETRY_DELAYS_MS must be a comma-separated list/],
    ['WEBHOOK_TIMEOUT_MS', '5', /WEBHOOK_TIMEOUT_MS must be between/],
    ['AUTH_FAILURE_LIMIT', '0', /AUTH_FAILURE_LIMIT must be between/],
    ['TRUST_PROXY', 'maybe', /TRUST_PROXY must be true or false/],
    ['MESSAGING_PROVIDER', 'carrier-pigeon', /MESSAGING_PROVIDER must be one of sandbox, http/],
    ['MESSAGING_PROVIDER', 'http', /MESSAGING_API_URL is required/],
    ['RUN_WORKER', '2', /RUN_WORKER must be true or false/],
    ['V8_PRETENURING', 'on', /V8_PRETENURING must be true or false/],
    ['USAGE_DETAIL_RETENTION_DAYS', '0', /USAGE_DETAIL_RETENTION_DAYS must be between 1 and 3650/],
    ['USAGE_DETAIL_RETENTION_DAYS', '3651', /USAGE_DETAIL_RETENTION_DAYS must be between 1 and 3650/],
    ['USAGE_DETAIL_RETENTION_DAYS', '30d', /USAGE_DETAIL_RETENTION_DAYS must be a whole number/],
    ['WEBHOOK_LOG_RETENTION_DAYS', '0', /WEBHOOK_LOG_RETENTION_DAYS must be between 1 and 3650/],
    ['WORKER_METRICS_PORT', '0', /WORKER_METRICS_PORT must be between 1 and 65535/],
    ['WORKER_METRICS_PORT', 'metrics', /WORKER_METRICS_PORT must be a whole number/],
    ['ADMIN_TOKEN', 'short', /ADMIN_TOKEN must be at least 16 characters/],
    ['NODE_ENV', 'staging', /NODE_ENV must be one of/],
  ])('stops with a message naming %s for %j', (name, value, message) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(message);
  });

  it("keeps V8's allocation-site pretenuring only when V8_PRETENURING=true", () => {
    expect(loadConfig({ V8_PRETENURING: 'true' }).v8Pretenuring).toBe(true);
    expect(loadConfig({ V8_PRETENURING: 'false' }).v8Pretenuring).toBe(false);
  });

  it('keeps the delivery log 30 days and serves no worker metrics unless asked', () => {
    expect(loadConfig({})).toMatchObject({ webhookLogRetentionDays: 30, workerMetricsPort: null });
    expect(loadConfig({ WEBHOOK_LOG_RETENTION_DAYS: '7', WORKER_METRICS_PORT: '9464' })).toMatchObject({
      webhookLogRetentionDays: 7,
      workerMetricsPort: 9464,
    });
  });

  it('refuses production without DATABASE_URL or ADMIN_TOKEN', () => {
    expect(() => loadConfig({ NODE_ENV: 'production', ADMIN_TOKEN: 'x'.repeat(20) })).toThrow(
      /DATABASE_URL is required/,
    );
    expect(() => loadConfig({ NODE_ENV: 'production', DATABASE_URL: 'postgres://h/db' })).toThrow(
      /ADMIN_TOKEN is required/,
    );
  });
});
