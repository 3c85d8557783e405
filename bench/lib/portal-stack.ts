/**
 * What the portal scenarios share: a fresh PostgreSQL database, the service on it (child process),
 * organizations made through the admin API, the stock loaded with SQL, publishable keys with raised
 * limits, and the list of listing requests the load cycles through.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AutocannonRequest } from 'autocannon';
import pg from 'pg';
import { fold } from '../../src/platform/text/fold.ts';
import { adminClient, publishableKey, type BenchKey, type BenchOrganization } from './admin-client.ts';
import { createBenchDatabase, requireDatabaseUrl, type BenchDatabase } from './bench-database.ts';
import { startChild, type ChildServer } from './child.ts';
import { citiesOf, createOrganizations, loadPortalStock, SALE_PRICE_MIDDLE } from './portal-data.ts';
import {
  generateScaleData,
  generatedOrganizations,
  keptDatabase,
  openGeneratedDatabase,
} from './scale-data.ts';
import { parseScaleArguments, type ScaleArguments } from './scenario.ts';
import type { CaptureOptions } from './sql-capture.ts';
import type { ServiceServerOptions } from './service-server.ts';

export const entry = (file: string) => fileURLToPath(new URL(`./${file}`, import.meta.url));

/** The admin API's maximum per key (admin.schema.ts). */
export const KEY_LIMIT_PER_MINUTE = 100_000;
/** The service's pool (src/db/database.ts default); the baseline gets the same. */
export const POOL_SIZE = 10;

export interface PortalStackOptions {
  serverUrl: string;
  /** A generated database (`npm run bench -- generate`) to run on: organizations and perOrg are then its own. */
  database?: string | undefined;
  organizations: number;
  perOrg: number;
  /** Publishable keys, spread round-robin over the first `keyOrganizations` organizations. */
  keys: number;
  keyOrganizations: number;
  /** Extra limits for the keys (the finder raises the write limit too). */
  writeLimitPerMinute?: number;
  /** Organization-wide write limit (admin API), for write scenarios. */
  organizationWriteLimitPerMinute?: number;
  captureSql?: CaptureOptions;
  nodeArgs?: string[];
  /**
   * Fill a fresh database with the scale generator (COPY, bench/lib/scale-data.ts: properties, and
   * these contacts and analytics events per organization) instead of portal-data's SQL.
   */
  generate?: { contactsPerOrg: number; eventsPerOrg: number };
  /** Extra environment of the service processes. */
  env?: Record<string, string>;
  /** Service processes on the same database (default 1); `service` is the first. */
  services?: number;
  log: (line: string) => void;
}

export interface PortalStack {
  database: BenchDatabase;
  service: ChildServer;
  services: ChildServer[];
  organizations: BenchOrganization[];
  keys: BenchKey[];
  /** What the database holds, and whether it was generated (kept) or loaded for this run (dropped). */
  stock: { organizations: number; perOrg: number; contactsPerOrg: number; generated: string | null };
  stop(): Promise<void>;
}

/**
 * Starts everything; on a failure midway, stops what was started and drops the database before
 * rethrowing. `stop()` does the same at the end.
 */
export async function startPortalStack(options: PortalStackOptions): Promise<PortalStack> {
  let generated =
    options.database === undefined ? null : await openGeneratedDatabase(options.serverUrl, options.database);
  const database = generated ? keptDatabase(generated) : await createBenchDatabase(options.serverUrl);
  const services: ChildServer[] = [];
  const stop = async () => {
    try {
      for (const service of services) await service.stop();
    } finally {
      await database.drop();
    }
  };
  try {
    options.log(`database ${database.name}: ${generated ? 'generated, ' : ''}migrating through the service`);
    for (let i = 0; i < (options.services ?? 1); i++) {
      services.push(
        await startChild<ServiceServerOptions>({
          name: i === 0 ? 'service' : `service ${i + 1}`,
          entry: entry('service-server.ts'),
          options: { env: { ...options.env, DATABASE_URL: database.url }, captureSql: options.captureSql },
          nodeArgs: options.nodeArgs,
        }),
      );
    }
    const [service] = services as [ChildServer];
    if (!generated && options.generate) {
      const size = { orgs: options.organizations, propertiesPerOrg: options.perOrg, ...options.generate };
      options.log(
        `generating ${size.orgs} organizations x (${size.propertiesPerOrg} properties, ${size.contactsPerOrg} contacts, ${size.eventsPerOrg} events)`,
      );
      await generateScaleData({
        databaseUrl: database.url,
        serviceUrl: service.url,
        size,
        indexes: 'during',
        log: options.log,
      });
      generated = await openGeneratedDatabase(options.serverUrl, database.name);
    }
    let organizations: BenchOrganization[];
    if (generated) {
      organizations = await generatedOrganizations(
        service.url,
        generated,
        options.keyOrganizations,
        options.organizationWriteLimitPerMinute,
      );
      options.log(
        `stock: ${organizations.length} organizations x ${generated.size.propertiesPerOrg.toLocaleString('en')} properties`,
      );
    } else {
      organizations = await createOrganizations(service.url, options.organizations, {
        ...(options.organizationWriteLimitPerMinute === undefined
          ? {}
          : { writeLimitPerMinute: options.organizationWriteLimitPerMinute }),
      });
      options.log(
        `${organizations.length} organizations created through the admin API; loading ${options.perOrg.toLocaleString('en')} properties each`,
      );
      await loadPortalStock(database.url, { organizations, perOrg: options.perOrg, log: options.log });
    }
    const admin = adminClient(service.url);
    const keys: BenchKey[] = [];
    const keyOrgs = Math.min(options.keyOrganizations, organizations.length);
    for (let i = 0; i < options.keys; i++) {
      const organization = organizations[i % keyOrgs];
      if (!organization) throw new Error('no organization for a key');
      keys.push(
        await publishableKey(
          admin,
          organization.id,
          {
            rateLimitPerMinute: KEY_LIMIT_PER_MINUTE,
            ...(options.writeLimitPerMinute === undefined
              ? {}
              : { writeLimitPerMinute: options.writeLimitPerMinute }),
          },
          `bench ${i}`,
        ),
      );
    }
    const stock = generated
      ? {
          organizations: generated.size.orgs,
          perOrg: generated.size.propertiesPerOrg,
          contactsPerOrg: generated.size.contactsPerOrg,
          generated: options.database ?? null,
        }
      : { organizations: options.organizations, perOrg: options.perOrg, contactsPerOrg: 0, generated: null };
    return { database, service, services, organizations, keys, stock, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The sale prices the listing requests cap at (around the middle of the stock). */
export const PRICE_MAXIMA = [SALE_PRICE_MIDDLE * 0.6, SALE_PRICE_MIDDLE, SALE_PRICE_MIDDLE * 1.6];

/**
 * The city filters sent for the organization with this index: its home town as a visitor types it
 * (capital and accent: "Málaga") and a lowercase, accent-free piece of its second city ("ordob").
 */
export function cityFilters(orgIndex: number): string[] {
  const [home = '', second = ''] = citiesOf(orgIndex);
  return [home, fold(second).slice(1, 7).trim()];
}

/**
 * GET /v1/properties?city=&priceMax=&sortBy=price&sortOrder=asc, every key x city x price cap,
 * interleaved so consecutive requests hit different organizations.
 */
export function listingRequests(
  keys: BenchKey[],
  organizations: BenchOrganization[],
): Array<AutocannonRequest & { path: string; headers: Record<string, string> }> {
  const requests: Array<AutocannonRequest & { path: string; headers: Record<string, string> }> = [];
  for (let variant = 0; variant < 2 * PRICE_MAXIMA.length; variant++) {
    for (const key of keys) {
      const orgIndex = organizations.findIndex((o) => o.id === key.organizationId);
      const city = cityFilters(orgIndex)[variant % 2] ?? '';
      const priceMax = PRICE_MAXIMA[Math.floor(variant / 2)] ?? SALE_PRICE_MIDDLE;
      requests.push({
        method: 'GET',
        path: `/v1/properties?city=${encodeURIComponent(city)}&priceMax=${priceMax}&sortBy=price&sortOrder=asc`,
        headers: { 'x-api-key': key.key },
      });
    }
  }
  return requests;
}

/** Up to `perOrg` published, active listings of each organization, spread over its stock. */
export async function publishedListings(
  databaseUrl: string,
  organizationIds: string[],
  perOrg: number,
): Promise<Map<string, string[]>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ organization_id: string; ids: string[] }>(
      `SELECT organization_id, (array_agg(id ORDER BY md5(id)))[1:$2] AS ids
       FROM properties
       WHERE organization_id = ANY($1) AND status = 'ACTIVE' AND published_on_portal
       GROUP BY organization_id`,
      [organizationIds, perOrg],
    );
    return new Map(rows.map((row) => [row.organization_id, row.ids]));
  } finally {
    await client.end();
  }
}

/** The options of a scenario's --orgs, --per-org, --keys (one per organization) and --database. */
export const scaleStackOptions = (serverUrl: string, scale: ScaleArguments, log: (line: string) => void) => ({
  serverUrl,
  database: scale.database,
  organizations: scale.orgs,
  perOrg: scale.perOrg,
  keys: scale.keys,
  keyOrganizations: scale.keys,
  log,
});

export const profileDirFor = (resultsDir: string, scenario: string, startedAt: Date) =>
  join(resultsDir, 'profiles', `${scenario}-${startedAt.toISOString().replace(/[:.]/g, '-')}`);

/** The `--orgs`, `--per-org` and `--keys` lines of a portal scenario's usage. */
export const portalScaleUsage = (defaults: ScaleArguments) =>
  `  --orgs N         organizations (default ${defaults.orgs})
  --per-org N      properties per organization (default ${defaults.perOrg})
  --keys N         publishable keys, one per organization from the first (default ${defaults.keys})`;

/**
 * How a portal scenario on PostgreSQL starts: its load and scale arguments, DATABASE_URL's server,
 * the start time and a line logger; null (after printing `usage`) for `--help`.
 */
export function startScaleScenario(name: string, args: string[], defaults: ScaleArguments, usage: string) {
  const { load, help, scale } = parseScaleArguments(args, defaults);
  if (help) {
    process.stdout.write(`${usage}\n`);
    return null;
  }
  return {
    load,
    scale,
    serverUrl: requireDatabaseUrl(name),
    startedAt: new Date(),
    log: (line: string) => process.stdout.write(`${line}\n`),
  };
}
