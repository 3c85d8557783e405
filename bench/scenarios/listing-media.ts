/**
 * Scenario `listing-media` (issue 25): the portal listing (GET /v1/properties, the service with its
 * cache off) of listings with uploaded photos and translations, asked in a translated language, against
 * the same listing of listings as they were before issue 25 (photos given by URL, one language), in
 * paired rounds of one invocation on one database: half the organizations get each shape.
 */
import pg from 'pg';
import { request } from '../lib/admin-client.ts';
import { startChild, type ChildServer } from '../lib/child.ts';
import {
  entry,
  listingRequests,
  portalScaleUsage,
  startPortalStack,
  startScaleScenario,
} from '../lib/portal-stack.ts';
import { machine, median, writeResult } from '../lib/report.ts';
import { failuresOf, mediansOf, pairedRounds, roundRatios, runsTable, type Target } from '../lib/rounds.ts';
import { DATABASE_USAGE, LOAD_USAGE, type Scenario } from '../lib/scenario.ts';
import type { ServiceServerOptions } from '../lib/service-server.ts';
import type { ScenarioSummary } from '../lib/verdict.ts';

/** A listing with 5 uploaded photos in 3 sizes and 2 translations answers at least this share of before. */
const TARGET = 0.8;
const DEFAULTS = { orgs: 20, perOrg: 1000, keys: 16 };
const PHOTOS = 5;

const USAGE = `Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB npm run bench -- listing-media [options]

GET /v1/properties?city=&priceMax=&sortBy=price&sortOrder=asc on a service with PORTAL_CACHE_SIZE_MB=0, two
ways in paired rounds: "before" (organizations whose listings have ${PHOTOS} photos given by URL and one
language, the shape before issue 25) and "media" (organizations whose listings have ${PHOTOS} uploaded photos
with id, alt text and 3 sizes, and translations in en and pt, asked with lang=en). Target: media/before
req/s >= ${TARGET}.
${LOAD_USAGE}
${portalScaleUsage(DEFAULTS)}
${DATABASE_USAGE}
With --check: every request of both shapes answers 200, the media ones in English with the uploaded
photos, on the tiny stock.`;

const fmt = (value: number, digits = 3) => Number(value.toFixed(digits));

/** The "media" organizations' listings: uploaded photos (as the upload writes them) and two translations. */
async function addMedia(databaseUrl: string, organizationIds: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `UPDATE properties AS p SET
         photos = (SELECT jsonb_agg(jsonb_build_object(
             'id', 'ph_' || substr(md5(p.id || n), 1, 22),
             'url', 'https://cdn.example.com/media/listings/' || p.organization_id || '/' || p.id || '/ph_' || n || '/1600.webp',
             'caption', 'Living room ' || n, 'altText', 'A bright living room with a terrace ' || n,
             'width', 4000, 'height', 3000,
             'sizes', (SELECT jsonb_agg(jsonb_build_object('width', w, 'height', w * 3 / 4,
                 'url', 'https://cdn.example.com/media/listings/' || p.organization_id || '/' || p.id || '/ph_' || n || '/' || w || '.webp'))
               FROM unnest(ARRAY[480, 960, 1600]) AS w)) ORDER BY n)
           FROM generate_series(1, ${PHOTOS}) AS n),
         translations = jsonb_build_object(
           'en', jsonb_build_object('title', 'Bright apartment ' || p.code, 'description', p.description),
           'pt', jsonb_build_object('title', 'Apartamento luminoso ' || p.code, 'description', p.description))
       WHERE p.organization_id = ANY($1)`,
      [organizationIds],
    );
    // Spanish (the stock's own text) is their default language.
    await client.query(`UPDATE organizations SET other_languages = '{en,pt}' WHERE id = ANY($1)`, [
      organizationIds,
    ]);
  } finally {
    await client.end();
  }
}

/** The "before" organizations' listings: photos given by URL, no translations (the shape before issue 25). */
async function urlPhotos(databaseUrl: string, organizationIds: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `UPDATE properties AS p SET
         photos = (SELECT jsonb_agg(jsonb_build_object(
             'url', 'https://images.example.com/' || p.id || '/' || n || '.jpg', 'caption', 'Living room ' || n) ORDER BY n)
           FROM generate_series(1, ${PHOTOS}) AS n),
         translations = '{}'
       WHERE p.organization_id = ANY($1)`,
      [organizationIds],
    );
  } finally {
    await client.end();
  }
}

async function run(args: string[]): Promise<void> {
  const start = startScaleScenario('listing-media', args, DEFAULTS, USAGE);
  if (start === null) return;
  const { load, scale, serverUrl, startedAt, log } = start;
  log(
    `listing-media${load.check ? ' --check' : ''}: ${scale.orgs} organizations x ${scale.perOrg} properties, ` +
      (load.check
        ? ''
        : `${load.rounds} x (before, media), -c ${load.connections} -d ${load.durationS} (+${load.warmupS} s warm-up), `) +
      `${scale.keys} publishable keys`,
  );
  const stack = await startPortalStack({
    serverUrl,
    database: scale.database,
    organizations: scale.orgs,
    perOrg: scale.perOrg,
    keys: scale.keys,
    keyOrganizations: scale.keys,
    log,
  });
  let service: ChildServer | null = null;
  try {
    // Keys alternate over the organizations: even ones keep the old shape, odd ones get the media.
    const keyed = [...new Set(stack.keys.map((key) => key.organizationId))];
    const mediaIds = keyed.filter((_, index) => index % 2 === 1);
    const beforeIds = keyed.filter((_, index) => index % 2 === 0);
    await urlPhotos(stack.database.url, beforeIds);
    await addMedia(stack.database.url, mediaIds);
    log(
      `${beforeIds.length} organizations as before, ${mediaIds.length} with uploaded photos and translations`,
    );
    service = await startChild<ServiceServerOptions>({
      name: 'uncached',
      entry: entry('service-server.ts'),
      options: { env: { DATABASE_URL: stack.database.url, PORTAL_CACHE_SIZE_MB: '0' } },
    });
    const all = listingRequests(stack.keys, stack.organizations);
    const orgOf = new Map(stack.keys.map((key) => [key.key, key.organizationId]));
    const isMedia = (r: (typeof all)[number]) =>
      mediaIds.includes(orgOf.get(r.headers['x-api-key'] ?? '') ?? '');
    const before = all.filter((r) => !isMedia(r));
    const media = all.filter(isMedia).map((r) => ({ ...r, path: `${r.path}&lang=en` }));
    if (before.length === 0 || media.length === 0)
      throw new Error('listing-media needs at least two keys (one organization of each shape)');
    // Check the shapes once: the media answers carry sizes and English titles.
    const probe = media[0];
    const sample = probe && (await fetch(`${service.url}${probe.path}`, { headers: probe.headers }));
    const body = sample
      ? ((await sample.json()) as { data: { language: string; photos: { sizes?: unknown[] }[] }[] })
      : null;
    const first = body?.data[0];
    if (
      !first ||
      first.language !== 'en' ||
      first.photos.length !== PHOTOS ||
      first.photos[0]?.sizes?.length !== 3
    )
      throw new Error(
        `the media listing does not show ${PHOTOS} uploaded photos in en: ${JSON.stringify(first)}`,
      );
    // What the load sends answers 200 (a run of errors would measure nothing), each shape as meant.
    for (const [shape, list] of [
      ['before', before],
      ['media', media],
    ] as const) {
      for (const r of list) {
        const answer = await request<{
          data: Array<{ language: string; photos: Array<{ sizes?: unknown }> }>;
        }>(`${service.url}${r.path}`, { headers: r.headers }, 200);
        const uploaded = answer.body.data.every((p) => p.photos.every((photo) => photo.sizes !== undefined));
        const language = answer.body.data.every((p) => p.language === (shape === 'media' ? 'en' : 'es'));
        if (!language || uploaded !== (shape === 'media') || answer.body.data.length === 0)
          throw new Error(
            `${shape} ${r.path} does not answer the ${shape} shape: ${answer.text.slice(0, 500)}`,
          );
      }
    }
    log(
      `checked: ${before.length} requests of the shape before issue 25 and ${media.length} with uploaded photos and ` +
        `English titles answer 200 (uncached service), each in its shape`,
    );
    if (load.check) return;
    const targets: Target[] = [
      { name: 'before', url: service.url, pid: service.pid, requests: before },
      { name: 'media', url: service.url, pid: service.pid, requests: media },
    ];
    const runs = await pairedRounds(targets, load, log);
    const perRound = roundRatios(runs, 'before', 'media', (r) => r.reqPerSec);
    const ratio = fmt(median(perRound.filter((r) => !Number.isNaN(r))));
    const medians = Object.fromEntries(targets.map((t) => [t.name, mediansOf(runs, t.name)]));
    const failures = Object.fromEntries(targets.map((t) => [t.name, failuresOf(runs, t.name)]));
    const met = ratio >= TARGET;
    log(
      `\n${runsTable(
        runs,
        targets.map((t) => t.name),
      )}\n\nmedia/before req/s, median of paired rounds: ${ratio} (per round ${perRound.join(', ')}); ` +
        `target >= ${TARGET}: ${met ? 'meets' : 'BELOW'}\nunexpected statuses: ${JSON.stringify(failures)}`,
    );
    const file = writeResult('listing-media', startedAt, {
      scenario: 'listing-media',
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      command: `npm run bench -- listing-media ${args.join(' ')}`.trim(),
      machine: machine(),
      stock: stack.stock,
      settings: {
        ...load,
        organizations: scale.orgs,
        perOrg: scale.perOrg,
        keys: scale.keys,
        photos: PHOTOS,
      },
      runs,
      medians,
      ratios: { media: { perRound, median: ratio } },
      target: TARGET,
      met,
      summary: {
        baseline: 'the same listing before issue 25 (URL photos, one language)',
        ratio,
        ratioOf: 'media / before req/s (uncached)',
        targetText: `media/before ≥ ${TARGET}`,
        met,
        p50At75: null,
        p99At75: null,
        latencyNote: 'closed loop only',
      } satisfies ScenarioSummary,
      failures,
    });
    log(`written ${file}`);
    if (Object.values(failures).some((f) => f.non2xx > 0 || f.errors > 0)) process.exitCode = 1;
  } finally {
    await service?.stop();
    await stack.stop();
  }
}

export const scenario: Scenario = {
  description: 'the portal listing with uploaded photos and translations vs the same listing before issue 25',
  run,
  check: ['--check'],
};
