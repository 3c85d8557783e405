/**
 * Scenario `sync` (issue 20), on a fresh PostgreSQL database:
 *
 * 1. Event-log paging: `--walkers` consumers each walk the whole log of one organization
 *    (`--events` events) with `GET /v1/event-log?after=<nextCursor>&pageSize=100`, against the
 *    service and against a bare Fastify route running one hand-written SELECT
 *    (bench/lib/event-log-bare-server.ts), in alternating rounds. Figure: events read per second;
 *    the ratio service/baseline.
 * 2. Batch writes: `--batch` contacts created by one `POST /v1/contacts/batch` against the same
 *    number created by single `POST /v1/contacts` calls (sequential, as an integrator's sync loop
 *    sends them), both on the service, in alternating rounds. Figure: contacts written per second;
 *    the ratio batch/singles.
 *
 * See bench/README.md ("sync").
 */
import pg from 'pg';
import { adminClient, request } from '../lib/admin-client.ts';
import { createBenchDatabase, requireDatabaseUrl } from '../lib/bench-database.ts';
import { startChild, type ChildServer } from '../lib/child.ts';
import { waitForQuiet } from '../lib/cpu.ts';
import type { EventLogBareServerOptions } from '../lib/event-log-bare-server.ts';
import { entry, KEY_LIMIT_PER_MINUTE, POOL_SIZE } from '../lib/portal-stack.ts';
import { machine, median, table, writeResult } from '../lib/report.ts';
import { CHECK_USAGE, parseLoadArguments, positive, type Scenario } from '../lib/scenario.ts';
import type { ServiceServerOptions } from '../lib/service-server.ts';

const DEFAULTS = { events: 20_000, walkers: 4, batch: 100, rounds: 5 };
/** `--check`: a log of a few pages, a batch of a few contacts. */
const CHECK = { events: 250, batch: 5 };
const PAGE_SIZE = 100;

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- sync [options]

Event-log paging (service vs a bare route with hand-written SQL) and a contacts batch against single
POSTs (both on the service), on a fresh PostgreSQL database created on DATABASE_URL's server and
dropped at the end.
  --events N    events in the organization's log (default ${DEFAULTS.events})
  --walkers N   consumers walking the whole log at once (default ${DEFAULTS.walkers})
  --batch N     contacts per batch, and as many single POSTs (1-100, default ${DEFAULTS.batch})
  --rounds N    alternating rounds of each part (default ${DEFAULTS.rounds})
${CHECK_USAGE}
                (${CHECK.events} events: every page byte-identical to the baseline's; ${CHECK.batch} single
                POSTs and a batch of ${CHECK.batch} answer 2xx)`;

const fmt = (value: number, digits = 1) => Number(value.toFixed(digits));

/** A realistic contact.updated payload (about 700 bytes of JSON), numbered. */
const PAYLOAD_SQL = `jsonb_build_object(
  'contact', jsonb_build_object('id', 'cnt_' || lpad(g::text, 22, '0'), 'code', 'C-' || g,
    'firstName', 'Marta', 'lastName', 'García López', 'email', 'marta' || g || '@example.com',
    'phone', '+3461' || lpad(g::text, 7, '0'), 'status', 'LEAD', 'type', 'BUYER', 'source', 'PORTAL',
    'tags', jsonb_build_array('vip', 'sea-view'), 'score', 42, 'optedOut', false, 'ownerId', null,
    'createdAt', '2027-03-29T10:15:00.000Z', 'updatedAt', '2027-03-29T10:15:00.000Z'),
  'changes', jsonb_build_array('status', 'tags'))`;

async function seedEvents(databaseUrl: string, organizationId: string, count: number) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // One transaction: the commit-time trigger numbers them 1..count after the key events.
    await client.query(
      `INSERT INTO events (id, organization_id, type, livemode, actor, data, created_at)
       SELECT 'evt_' || lpad(g::text, 22, '0'), $1, 'contact.updated', true,
              '{"kind":"API","userId":null}'::jsonb, ${PAYLOAD_SQL}, now()
       FROM generate_series(1, $2::int) g`,
      [organizationId, count],
    );
    await client.query('ANALYZE events');
  } finally {
    await client.end();
  }
}

/** Walks the whole log from the start; returns the events read. */
async function walk(baseUrl: string, key: string): Promise<number> {
  let after = 0;
  let read = 0;
  for (;;) {
    const response = await fetch(`${baseUrl}/v1/event-log?after=${after}&pageSize=${PAGE_SIZE}`, {
      headers: { 'x-api-key': key },
    });
    if (response.status !== 200)
      throw new Error(`event log answered ${response.status}: ${await response.text()}`);
    const page = (await response.json()) as {
      data: unknown[];
      meta: { hasMore: boolean; nextCursor: number };
    };
    read += page.data.length;
    if (!page.meta.hasMore) return read;
    after = page.meta.nextCursor;
  }
}

/**
 * `--check`: walks the whole log on both servers page by page; every page must be byte-identical.
 * Answers the events read.
 */
async function walkBoth(serviceUrl: string, baselineUrl: string, key: string): Promise<number> {
  let after = 0;
  let read = 0;
  for (;;) {
    const path = `/v1/event-log?after=${after}&pageSize=${PAGE_SIZE}`;
    const [fromService, fromBaseline] = await Promise.all(
      [serviceUrl, baselineUrl].map((url) =>
        request<{ data: unknown[]; meta: { hasMore: boolean; nextCursor: number } }>(
          `${url}${path}`,
          { headers: { 'x-api-key': key } },
          200,
        ),
      ),
    );
    if (!fromService || !fromBaseline) throw new Error('no answer');
    if (fromService.text !== fromBaseline.text)
      throw new Error(
        `the baseline's page differs for ${path}:\n${fromBaseline.text.slice(0, 2000)}\n${fromService.text.slice(0, 2000)}`,
      );
    read += fromService.body.data.length;
    if (!fromService.body.meta.hasMore) return read;
    after = fromService.body.meta.nextCursor;
  }
}

async function quiet(log: (line: string) => void) {
  await waitForQuiet({ maxBusyPercent: 15, timeoutS: 60 }, (busy) =>
    log(`  waiting for a quiet machine (${busy.toFixed(0)} % busy)`),
  );
}

async function run(args: string[]): Promise<void> {
  const { help, text, load } = parseLoadArguments(args, {
    events: { type: 'string' },
    walkers: { type: 'string' },
    batch: { type: 'string' },
  });
  if (help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const events = positive('events', text('events'), load.check ? CHECK.events : DEFAULTS.events, 1);
  const walkers = positive('walkers', text('walkers'), DEFAULTS.walkers, 1);
  const batchSize = Math.min(
    100,
    positive('batch', text('batch'), load.check ? CHECK.batch : DEFAULTS.batch, 1),
  );
  const rounds = positive('rounds', text('rounds'), DEFAULTS.rounds, 1);
  const serverUrl = requireDatabaseUrl('sync');
  const startedAt = new Date();
  const log = (line: string) => process.stdout.write(`${line}\n`);
  const database = await createBenchDatabase(serverUrl);
  let service: ChildServer | null = null;
  let baseline: ChildServer | null = null;
  try {
    service = await startChild<ServiceServerOptions>({
      name: 'service',
      entry: entry('service-server.ts'),
      options: { env: { DATABASE_URL: database.url } },
    });
    const admin = adminClient(service.url);
    const organization = await admin.post<{ id: string }>('/admin/v1/organizations', {
      name: 'Sync bench agency',
      plan: 'ENTERPRISE',
      writeLimitPerMinute: KEY_LIMIT_PER_MINUTE,
    });
    const { key } = await admin.post<{ key: string }>(`/admin/v1/organizations/${organization.id}/api-keys`, {
      type: 'secret',
      name: 'sync bench',
      scopes: ['events:read', 'contacts:read', 'contacts:write'],
      accessLevel: 3,
      rateLimitPerMinute: KEY_LIMIT_PER_MINUTE,
      writeLimitPerMinute: KEY_LIMIT_PER_MINUTE,
    });
    log(`sync: seeding ${events} events on ${database.name}`);
    await seedEvents(database.url, organization.id, events);
    baseline = await startChild<EventLogBareServerOptions>({
      name: 'baseline',
      entry: entry('event-log-bare-server.ts'),
      options: {
        databaseUrl: database.url,
        poolSize: POOL_SIZE,
        keyOrganizations: { [key]: organization.id },
      },
    });
    const probe = `/v1/event-log?after=5&pageSize=${PAGE_SIZE}`;
    const [fromService, fromBaseline] = await Promise.all(
      [service, baseline].map((server) =>
        request(`${server.url}${probe}`, { headers: { 'x-api-key': key } }, 200),
      ),
    );
    if (fromService?.text !== fromBaseline?.text)
      throw new Error('the baseline answers a different page than the service');

    // The contacts part 2 writes (below), one new person each.
    let person = 0;
    const contact = () => {
      person += 1;
      return {
        firstName: `Bench${person}`,
        email: `bench${person}@example.com`,
        phone: `+3466${String(person).padStart(7, '0')}`,
      };
    };
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${service?.url}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (response.status >= 300)
        throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
      return response.json() as Promise<{ data: { summary?: { created: number } } }>;
    };

    if (load.check) {
      const read = await walkBoth(service.url, baseline.url, key);
      if (read < events) throw new Error(`the event log holds ${events} seeded events, ${read} were read`);
      for (let i = 0; i < batchSize; i += 1) await post('/v1/contacts', contact());
      const answer = await post('/v1/contacts/batch', {
        contacts: Array.from({ length: batchSize }, contact),
      });
      if (answer.data.summary?.created !== batchSize)
        throw new Error(`batch of ${batchSize} created ${answer.data.summary?.created}`);
      log(
        `checked: the whole event log (${read} events, ${Math.ceil(read / PAGE_SIZE)} pages) byte-identical from the service ` +
          `and the baseline (bare SQL); ${batchSize} single POST /v1/contacts and one batch of ${batchSize} answer 2xx, the batch creating all`,
      );
      return;
    }

    // Part 1: event-log paging.
    const paging: Array<{ round: number; target: string; eventsPerSecond: number; seconds: number }> = [];
    for (let round = 1; round <= rounds; round += 1) {
      for (const server of [baseline, service]) {
        await quiet(log);
        const started = performance.now();
        const counts = await Promise.all(Array.from({ length: walkers }, () => walk(server.url, key)));
        const seconds = (performance.now() - started) / 1000;
        const read = counts.reduce((sum, n) => sum + n, 0);
        paging.push({
          round,
          target: server.name,
          eventsPerSecond: fmt(read / seconds, 0),
          seconds: fmt(seconds, 2),
        });
        log(`  paging round ${round} ${server.name}: ${read} events in ${seconds.toFixed(2)} s`);
      }
    }
    const pagingRatios = Array.from({ length: rounds }, (_, i) => {
      const [base, svc] = paging.filter((r) => r.round === i + 1);
      return fmt((svc?.eventsPerSecond ?? 0) / (base?.eventsPerSecond ?? 1), 3);
    });

    // Part 2: one batch against as many single POSTs.
    const writes: Array<{ round: number; target: string; contactsPerSecond: number; seconds: number }> = [];
    for (let round = 1; round <= rounds; round += 1) {
      await quiet(log);
      let started = performance.now();
      for (let i = 0; i < batchSize; i += 1) await post('/v1/contacts', contact());
      let seconds = (performance.now() - started) / 1000;
      writes.push({
        round,
        target: 'singles',
        contactsPerSecond: fmt(batchSize / seconds, 0),
        seconds: fmt(seconds, 3),
      });
      await quiet(log);
      started = performance.now();
      const answer = await post('/v1/contacts/batch', {
        contacts: Array.from({ length: batchSize }, contact),
      });
      seconds = (performance.now() - started) / 1000;
      if (answer.data.summary?.created !== batchSize)
        throw new Error(`batch created ${answer.data.summary?.created}`);
      writes.push({
        round,
        target: 'batch',
        contactsPerSecond: fmt(batchSize / seconds, 0),
        seconds: fmt(seconds, 3),
      });
      log(`  batch round ${round}: singles ${writes.at(-2)?.seconds} s, batch ${seconds.toFixed(3)} s`);
    }
    const batchRatios = Array.from({ length: rounds }, (_, i) => {
      const [singles, batch] = writes.filter((r) => r.round === i + 1);
      return fmt((batch?.contactsPerSecond ?? 0) / (singles?.contactsPerSecond ?? 1), 2);
    });

    const pagingMedian = (target: string) =>
      median(paging.filter((r) => r.target === target).map((r) => r.eventsPerSecond));
    const writesMedian = (target: string) =>
      median(writes.filter((r) => r.target === target).map((r) => r.contactsPerSecond));
    log(
      `\n${table([
        ['part', 'target', 'median per second', 'ratio (median of rounds)'],
        ['event-log paging', 'baseline (bare SQL)', pagingMedian('baseline'), ''],
        ['event-log paging', 'service', pagingMedian('service'), median(pagingRatios).toFixed(3)],
        ['contacts', `${batchSize} single POSTs`, writesMedian('singles'), ''],
        ['contacts', `1 batch of ${batchSize}`, writesMedian('batch'), median(batchRatios).toFixed(2)],
      ])}\n` +
        `paging ratios per round ${pagingRatios.join(', ')}; batch ratios per round ${batchRatios.join(', ')}`,
    );
    const file = writeResult('sync', startedAt, {
      machine: machine(),
      settings: { events, walkers, pageSize: PAGE_SIZE, batchSize, rounds },
      paging,
      pagingRatio: median(pagingRatios),
      writes,
      batchRatio: median(batchRatios),
    });
    log(`result: ${file}`);
  } finally {
    await baseline?.stop();
    await service?.stop();
    await database.drop();
  }
}

export const scenario: Scenario = {
  description: 'event-log paging vs bare SQL, and a contacts batch vs single POSTs (PostgreSQL)',
  run,
  check: ['--check'],
};
