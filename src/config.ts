import { randomBytes } from 'node:crypto';

/**
 * Every environment variable of the operator interface (DESIGN.md), parsed once into a typed,
 * frozen object. Nothing else in the service reads `process.env`: `server.ts` and `worker.ts` call
 * `loadConfig(process.env)` and pass the result down. (The CLI is a client and has its own two
 * variables, AGENCY_CRM_URL and ADMIN_TOKEN.)
 */
export interface Config {
  readonly nodeEnv: 'development' | 'production' | 'test';
  readonly port: number;
  readonly host: string;
  /** PostgreSQL URL; `undefined` means the embedded PGlite database in `dataDir`. */
  readonly databaseUrl: string | undefined;
  /** DATABASE_MIGRATION_URL: where migrations connect (a direct URL beside a pooler); else databaseUrl. */
  readonly databaseMigrationUrl: string | undefined;
  /** DATABASE_POOL_SIZE: connections one process opens at most (docs/scaling.md sizes it). */
  readonly databasePoolSize: number;
  /** DATABASE_STATEMENT_TIMEOUT_MS: statement_timeout of every transaction (a hung query frees its connection). */
  readonly databaseStatementTimeoutMs: number;
  /**
   * DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS: idle_in_transaction_session_timeout of every transaction (the
   * server ends a transaction left idle this long, its locks released).
   */
  readonly databaseIdleInTransactionTimeoutMs: number;
  /** DATABASE_CONNECT_TIMEOUT_MS: connecting, or waiting for a free pooled connection. */
  readonly databaseConnectTimeoutMs: number;
  /** DATABASE_PREPARED_STATEMENTS: named prepared statements (false behind PgBouncer before 1.21). */
  readonly databasePreparedStatements: boolean;
  /** DATABASE_READ_URL: read replicas, comma-separated (PostgreSQL only; none by default). */
  readonly databaseReadUrls: readonly string[];
  /** DATABASE_READ_MAX_LAG_MS: a replica further behind the primary serves no reads. */
  readonly databaseReadMaxLagMs: number;
  /** Folder of the embedded database, or `memory://` for an in-memory one. */
  readonly dataDir: string;
  readonly redisUrl: string | undefined;
  readonly adminToken: string;
  /** True when ADMIN_TOKEN was unset and a token was generated for this run (server prints it). */
  readonly adminTokenGenerated: boolean;
  readonly demoSeed: boolean;
  readonly webhookRetryDelaysMs: readonly number[];
  readonly webhookTimeoutMs: number;
  readonly webhookAllowPrivateUrls: boolean;
  /** A subscription whose deliveries keep failing this long is disabled (WEBHOOK_DISABLE_AFTER_HOURS). */
  readonly webhookDisableAfterMs: number;
  readonly authFailureLimit: number;
  readonly authFailureWindowS: number;
  readonly authFailureBlockS: number;
  readonly trustProxy: boolean;
  /** The service's public URL (PUBLIC_URL): console links point there; unset, at the address a request came to. */
  readonly publicUrl: string | undefined;
  /** Longest time a client may take to send a whole request (headers and body), REQUEST_TIMEOUT_MS. */
  readonly requestTimeoutMs: number;
  readonly messagingProvider: 'sandbox' | 'http';
  readonly messagingApiUrl: string | undefined;
  readonly messagingApiToken: string | undefined;
  /** Time limit of one call to the `http` provider. */
  readonly messagingTimeoutMs: number;
  /** HMAC-SHA256 key of the provider's inbound hook (`X-Hub-Signature-256`); unset = hook disabled. */
  readonly messagingWebhookSecret: string | undefined;
  /**
   * Where emails go (issue 41): SMTP (SMTP_URL), SANDBOX (kept, never delivered: the default outside
   * production when SMTP_URL is unset) or OFF (nothing queued is sent: skipped). EMAIL_TRANSPORT.
   */
  readonly emailTransport: 'smtp' | 'sandbox' | 'off';
  /** SMTP_URL, e.g. smtps://user:pass@smtp.example.com:465 (Nodemailer's connection URL). */
  readonly smtpUrl: string | undefined;
  /** EMAIL_FROM: the address every email is sent from (the organization's name shows before it). */
  readonly emailFrom: string;
  /** EMAIL_BOUNCE_SECRET: HMAC-SHA256 key of the inbound bounce hook; unset = hook disabled. */
  readonly emailBounceSecret: string | undefined;
  /** Time limit of one SMTP send (EMAIL_TIMEOUT_MS). */
  readonly emailTimeoutMs: number;
  /** Days emails stay in the email log, with what they said (EMAIL_LOG_RETENTION_DAYS). */
  readonly emailLogRetentionDays: number;
  readonly runWorker: boolean;
  /** V8_PRETENURING: keep V8's allocation-site pretenuring (off by default; platform/runtime/v8-tuning.ts). */
  readonly v8Pretenuring: boolean;
  /** WORKER_METRICS_PORT: a worker-only process (`npm run worker`) serves GET /metrics there; null: none. */
  readonly workerMetricsPort: number | null;
  /** Days raw usage events are kept after they arrive; the daily aggregates are kept for good. */
  readonly usageDetailRetentionDays: number;
  /** Days events stay in the event log (GET /v1/event-log), with their webhook deliveries. */
  readonly eventLogRetentionDays: number;
  /** Days finished webhook deliveries and their attempts stay in the delivery log (WEBHOOK_LOG_RETENTION_DAYS). */
  readonly webhookLogRetentionDays: number;
  /** REQUEST_LOG_ENABLED: /v1 and /mcp requests of an organization are recorded in request_logs. */
  readonly requestLogEnabled: boolean;
  /** Days request log lines are kept (REQUEST_LOG_RETENTION_DAYS). */
  readonly requestLogRetentionDays: number;
  /** PORTAL_CACHE_SIZE_MB: megabytes of portal answers each process keeps (0: none; ETags stay). */
  readonly portalCacheSizeMb: number;
  /** PORTAL_CACHE_MAX_AGE_S: Cache-Control max-age of portal answers, for browsers and CDNs. */
  readonly portalCacheMaxAgeS: number;
  /** STORAGE_DRIVER: where uploaded photos are kept, `local` (STORAGE_DIR) or `s3` (decision 0233). */
  readonly storageDriver: 'local' | 's3';
  /** STORAGE_DIR: folder of the `local` driver; default DATA_DIR/media, `memory://` with DATA_DIR=memory://. */
  readonly storageDir: string;
  /** The S3_* settings of STORAGE_DRIVER=s3 (undefined otherwise). */
  readonly s3:
    | {
        readonly bucket: string;
        readonly region: string;
        readonly endpoint: string | undefined;
        readonly forcePathStyle: boolean;
        readonly accessKeyId: string | undefined;
        readonly secretAccessKey: string | undefined;
        /** Photos are linked there (a CDN or public bucket) instead of GET /media/{key}. */
        readonly publicBaseUrl: string | undefined;
      }
    | undefined;
  /** PHOTO_MAX_UPLOAD_MB: largest photo file accepted (413 above). */
  readonly photoMaxUploadMb: number;
  /** PHOTO_MAX_MEGAPIXELS: largest photo accepted, in millions of pixels (400 above). */
  readonly photoMaxMegapixels: number;
  /**
   * SECRETS_KEY: the 32-byte AES-256-GCM key that seals secrets at rest (platform/crypto). Unset:
   * generated into DATA_DIR/secrets.key (embedded default), in-process for DATA_DIR=memory://.
   */
  readonly secretsKey: Buffer | undefined;
  /** SECRETS_KEY_PREVIOUS: earlier keys, which still open what they sealed (rotation); never seal. */
  readonly secretsKeyPrevious: readonly Buffer[];
  readonly logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid configuration: ${variable} ${detail}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

function read(env: Env, name: string): string | undefined {
  const value = env[name];
  return value === undefined || value.trim() === '' ? undefined : value.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(name, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function boolean(env: Env, name: string, fallback: boolean): boolean {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (raw === 'true' || raw === '1') return true;
  if (raw === 'false' || raw === '0') return false;
  throw new ConfigError(name, `must be true or false, got "${raw}"`);
}

function oneOf<T extends string>(env: Env, name: string, values: readonly T[], fallback: T): T {
  const raw = read(env, name);
  if (raw === undefined) return fallback;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `must be one of ${values.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/** A comma-separated list of URLs, each checked like `url`. */
function urls(env: Env, name: string, protocols: readonly string[]): string[] {
  const raw = read(env, name);
  if (raw === undefined) return [];
  return raw.split(',').map((part, index) => {
    const value = url({ [name]: part }, name, protocols);
    if (value === undefined) throw new ConfigError(name, `has an empty entry at position ${index + 1}`);
    return value;
  });
}

function url(env: Env, name: string, protocols: readonly string[]): string | undefined {
  const raw = read(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, 'must be a URL');
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `must use ${protocols.join(' or ')}, got ${parsed.protocol}`);
  }
  return raw;
}

/** A 32-byte key written as 64 hex characters or as base64 (standard or URL alphabet); null otherwise. */
export function parseSecretsKey(text: string): Buffer | null {
  const value = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(value)) return Buffer.from(value, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) {
    const key = Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    return key.length === 32 ? key : null;
  }
  return null;
}

const SECRETS_KEY_FORMAT =
  'must be 32 bytes written as 64 hex characters or base64 (openssl rand -base64 32)';

function secretsKeys(env: Env, production: boolean): { current: Buffer | undefined; previous: Buffer[] } {
  const raw = read(env, 'SECRETS_KEY');
  if (raw === undefined && production) {
    throw new ConfigError(
      'SECRETS_KEY',
      `is required when NODE_ENV=production (it seals webhook secrets at rest; docs/secrets.md); ${SECRETS_KEY_FORMAT}`,
    );
  }
  // The message never echoes the value: it is a secret even when malformed.
  const current = raw === undefined ? undefined : parseSecretsKey(raw);
  if (current === null) throw new ConfigError('SECRETS_KEY', SECRETS_KEY_FORMAT);
  const previous = (read(env, 'SECRETS_KEY_PREVIOUS') ?? '')
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part, index) => {
      const key = parseSecretsKey(part);
      if (key === null)
        throw new ConfigError('SECRETS_KEY_PREVIOUS', `item ${index + 1} ${SECRETS_KEY_FORMAT}`);
      return key;
    });
  return { current, previous };
}

/** The S3_* settings of STORAGE_DRIVER=s3 (docs/listings.md "Photos"). */
function s3Settings(env: Env): NonNullable<Config['s3']> {
  const bucket = read(env, 'S3_BUCKET');
  if (bucket === undefined) throw new ConfigError('S3_BUCKET', 'is required when STORAGE_DRIVER=s3');
  const accessKeyId = read(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = read(env, 'S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError(
      accessKeyId === undefined ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY',
      'must be set together with its pair (or both left unset for the SDK default credentials)',
    );
  }
  const endpoint = url(env, 'S3_ENDPOINT', ['http:', 'https:']);
  return {
    bucket,
    region: read(env, 'S3_REGION') ?? 'us-east-1',
    endpoint,
    // MinIO and most S3-compatible servers address buckets by path; AWS by host name.
    forcePathStyle: boolean(env, 'S3_FORCE_PATH_STYLE', endpoint !== undefined),
    accessKeyId,
    secretAccessKey,
    publicBaseUrl: url(env, 'S3_PUBLIC_BASE_URL', ['http:', 'https:'])?.replace(/\/+$/, ''),
  };
}

/** Parses the environment; throws ConfigError naming the first bad variable. */
export function loadConfig(env: Env): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', ['development', 'production', 'test'], 'development');
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  if (nodeEnv === 'production' && databaseUrl === undefined) {
    throw new ConfigError(
      'DATABASE_URL',
      'is required when NODE_ENV=production (the embedded database is for development and demos only)',
    );
  }

  const databaseReadUrls = urls(env, 'DATABASE_READ_URL', ['postgres:', 'postgresql:']);
  if (databaseReadUrls.length > 0 && databaseUrl === undefined) {
    throw new ConfigError('DATABASE_READ_URL', 'needs DATABASE_URL (read replicas are PostgreSQL servers)');
  }

  const givenToken = read(env, 'ADMIN_TOKEN');
  if (givenToken === undefined && nodeEnv === 'production') {
    throw new ConfigError('ADMIN_TOKEN', 'is required when NODE_ENV=production');
  }
  if (givenToken !== undefined && givenToken.length < 16) {
    throw new ConfigError('ADMIN_TOKEN', 'must be at least 16 characters');
  }

  const delaysRaw = read(env, 'WEBHOOK_RETRY_DELAYS_MS') ?? '0,5000,30000,120000,600000';
  const webhookRetryDelaysMs = delaysRaw.split(',').map((part) => {
    const item = part.trim();
    if (!/^\d+$/.test(item)) {
      throw new ConfigError(
        'WEBHOOK_RETRY_DELAYS_MS',
        `must be a comma-separated list of milliseconds, got "${delaysRaw}"`,
      );
    }
    return Number(item);
  });
  if (webhookRetryDelaysMs.length < 1 || webhookRetryDelaysMs.length > 20) {
    throw new ConfigError('WEBHOOK_RETRY_DELAYS_MS', 'must list between 1 and 20 delays');
  }

  const messagingProvider = oneOf(env, 'MESSAGING_PROVIDER', ['sandbox', 'http'], 'sandbox');
  const messagingApiUrl = url(env, 'MESSAGING_API_URL', ['http:', 'https:']);
  const messagingApiToken = read(env, 'MESSAGING_API_TOKEN');
  if (messagingProvider === 'http' && messagingApiUrl === undefined) {
    throw new ConfigError('MESSAGING_API_URL', 'is required when MESSAGING_PROVIDER=http');
  }

  const smtpUrl = url(env, 'SMTP_URL', ['smtp:', 'smtps:']);
  const emailTransport = oneOf(
    env,
    'EMAIL_TRANSPORT',
    ['smtp', 'sandbox', 'off'],
    smtpUrl !== undefined ? 'smtp' : nodeEnv === 'production' ? 'off' : 'sandbox',
  );
  if (emailTransport === 'smtp' && smtpUrl === undefined) {
    throw new ConfigError('SMTP_URL', 'is required when EMAIL_TRANSPORT=smtp');
  }
  const emailFrom = read(env, 'EMAIL_FROM') ?? 'no-reply@agency-crm.localhost';
  if (!/^[^\s@<>]+@[^\s@<>]+$/.test(emailFrom)) {
    throw new ConfigError('EMAIL_FROM', `must be a bare email address, got "${emailFrom}"`);
  }

  const dataDir = read(env, 'DATA_DIR') ?? './data';
  const storageDriver = oneOf(env, 'STORAGE_DRIVER', ['local', 's3'], 'local');
  const s3 = storageDriver === 's3' ? s3Settings(env) : undefined;
  const secrets = secretsKeys(env, nodeEnv === 'production');

  const config: Config = {
    nodeEnv,
    port: integer(env, 'PORT', 3000, 0, 65535),
    host: read(env, 'HOST') ?? '127.0.0.1',
    databaseUrl,
    databaseMigrationUrl: url(env, 'DATABASE_MIGRATION_URL', ['postgres:', 'postgresql:']),
    databasePoolSize: integer(env, 'DATABASE_POOL_SIZE', 10, 1, 1_000),
    databaseStatementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 15_000, 100, 3_600_000),
    databaseIdleInTransactionTimeoutMs: integer(
      env,
      'DATABASE_IDLE_IN_TRANSACTION_TIMEOUT_MS',
      60_000,
      100,
      3_600_000,
    ),
    databaseConnectTimeoutMs: integer(env, 'DATABASE_CONNECT_TIMEOUT_MS', 10_000, 100, 600_000),
    databasePreparedStatements: boolean(env, 'DATABASE_PREPARED_STATEMENTS', true),
    databaseReadUrls: Object.freeze(databaseReadUrls),
    databaseReadMaxLagMs: integer(env, 'DATABASE_READ_MAX_LAG_MS', 1_000, 0, 3_600_000),
    dataDir,
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    adminToken: givenToken ?? `adm_${randomBytes(24).toString('base64url')}`,
    adminTokenGenerated: givenToken === undefined,
    demoSeed: boolean(env, 'DEMO_SEED', databaseUrl === undefined),
    webhookRetryDelaysMs: Object.freeze(webhookRetryDelaysMs),
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 120_000),
    webhookAllowPrivateUrls: boolean(env, 'WEBHOOK_ALLOW_PRIVATE_URLS', false),
    webhookDisableAfterMs: integer(env, 'WEBHOOK_DISABLE_AFTER_HOURS', 72, 1, 24 * 365) * 60 * 60_000,
    authFailureLimit: integer(env, 'AUTH_FAILURE_LIMIT', 20, 1, 1_000_000),
    authFailureWindowS: integer(env, 'AUTH_FAILURE_WINDOW_S', 60, 1, 86_400),
    authFailureBlockS: integer(env, 'AUTH_FAILURE_BLOCK_S', 300, 1, 86_400),
    trustProxy: boolean(env, 'TRUST_PROXY', false),
    publicUrl: url(env, 'PUBLIC_URL', ['http:', 'https:'])?.replace(/\/+$/, ''),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
    messagingProvider,
    messagingApiUrl,
    messagingApiToken,
    messagingTimeoutMs: integer(env, 'MESSAGING_TIMEOUT_MS', 10_000, 100, 120_000),
    messagingWebhookSecret: read(env, 'MESSAGING_WEBHOOK_SECRET'),
    emailTransport,
    smtpUrl,
    emailFrom,
    emailBounceSecret: read(env, 'EMAIL_BOUNCE_SECRET'),
    emailTimeoutMs: integer(env, 'EMAIL_TIMEOUT_MS', 15_000, 100, 120_000),
    emailLogRetentionDays: integer(env, 'EMAIL_LOG_RETENTION_DAYS', 30, 1, 3650),
    runWorker: boolean(env, 'RUN_WORKER', true),
    v8Pretenuring: boolean(env, 'V8_PRETENURING', false),
    workerMetricsPort:
      read(env, 'WORKER_METRICS_PORT') === undefined
        ? null
        : integer(env, 'WORKER_METRICS_PORT', 0, 1, 65535),
    usageDetailRetentionDays: integer(env, 'USAGE_DETAIL_RETENTION_DAYS', 90, 1, 3650),
    eventLogRetentionDays: integer(env, 'EVENT_LOG_RETENTION_DAYS', 30, 1, 3650),
    webhookLogRetentionDays: integer(env, 'WEBHOOK_LOG_RETENTION_DAYS', 30, 1, 3650),
    requestLogEnabled: boolean(env, 'REQUEST_LOG_ENABLED', true),
    requestLogRetentionDays: integer(env, 'REQUEST_LOG_RETENTION_DAYS', 7, 1, 365),
    portalCacheSizeMb: integer(env, 'PORTAL_CACHE_SIZE_MB', 64, 0, 4096),
    portalCacheMaxAgeS: integer(env, 'PORTAL_CACHE_MAX_AGE_S', 30, 0, 86_400),
    storageDriver,
    storageDir:
      read(env, 'STORAGE_DIR') ??
      (dataDir === 'memory://' ? 'memory://' : `${dataDir.replace(/\/+$/, '')}/media`),
    s3,
    photoMaxUploadMb: integer(env, 'PHOTO_MAX_UPLOAD_MB', 15, 1, 200),
    photoMaxMegapixels: integer(env, 'PHOTO_MAX_MEGAPIXELS', 40, 1, 250),
    secretsKey: secrets.current,
    secretsKeyPrevious: Object.freeze(secrets.previous),
    logLevel: oneOf(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], 'info'),
  };
  return Object.freeze(config);
}

/**
 * The settings of an empty environment, for code that also runs without a whole Config (tests,
 * scripts and benchmarks open the database or run the worker's jobs) and falls back to the documented
 * defaults: each default stays written once, in `loadConfig`. Its generated ADMIN_TOKEN opens nothing.
 */
export const CONFIG_DEFAULTS: Config = loadConfig({});

/** For entry points: the config, or the ConfigError's message on stderr and exit code 1. */
export function loadConfigOrExit(env: Env): Config {
  return exitOnConfigError(() => loadConfig(env));
}

/** For entry points: `work`'s result, or its ConfigError's message on stderr and exit code 1. */
export function exitOnConfigError<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}
