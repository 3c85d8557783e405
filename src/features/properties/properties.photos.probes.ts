// The photos.probe job (decision 0266): for each listing the photo_probes queue holds, asks the addresses
// of its photos given by URL without an image file ending what media type they answer, and records it as
// the photo's `contentType` (the Kyero feed then gives such a photo through an alias URL that ends as
// Kyero requires). One tenant transaction per listing, recorded as every change of its photos is.
import type { Database } from '../../db/database.ts';
import type { PropertyPhoto } from '../../db/schema.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { recordEvent } from '../../platform/events/record.ts';
import type { Logger } from '../../platform/logging/logger.ts';
import { deliveryAgents, type Lookup } from '../webhooks/index.ts';
import { PropertyUpdated } from './properties.events.ts';
import { PROBE_MAX_REDIRECTS, probeContentType, type ProbeOutcome } from './properties.photos.probe.ts';
import * as queue from './properties.photos.probes.store.ts';
import { isUploaded } from './properties.photos.rules.ts';
import { lockPropertyPhotos, updatePropertyPhotos } from './properties.photos.store.ts';
import { eventProperty } from './properties.service.ts';

/** Listings claimed per run, and photos probed per listing per run: a large catalogue is worked in slices. */
export const PROBE_LISTINGS_PER_RUN = 20;
export const PROBE_PHOTOS_PER_LISTING = 10;
/** Each request's time limit: an image host answers a HEAD in well under this. */
export const PROBE_TIMEOUT_MS = 5_000;

const ACTOR: Actor = { kind: 'SYSTEM', userId: null };
const IMAGE_ENDING = /\.(gif|jpe?g|png)$/i;

export interface ProbeSettings {
  /** Delay before each run of a listing whose probes failed (WEBHOOK_RETRY_DELAYS_MS); past the last, given up. */
  retryDelaysMs: readonly number[];
  /** WEBHOOK_ALLOW_PRIVATE_URLS: the same guard as webhook deliveries. */
  allowPrivate: boolean;
  timeoutMs?: number;
  /** Tests resolve made-up names (webhooks' fakeDns). */
  lookup?: Lookup;
  log?: Pick<Logger, 'warn' | 'info' | 'error'>;
  now?: () => Date;
}

/** A photo given by URL that Kyero's schema would refuse for its ending and that has not been probed. */
function needsProbe(photo: PropertyPhoto): boolean {
  return (
    !isUploaded(photo) &&
    photo.contentType === undefined &&
    /^https?:\/\//i.test(photo.url) &&
    !IMAGE_ENDING.test(photo.url)
  );
}

/** Each photo with the occurrence of its URL in the list: what a probe's answer is matched by. */
function occurrences(photos: readonly PropertyPhoto[]): { photo: PropertyPhoto; key: string }[] {
  const seen = new Map<string, number>();
  return photos.map((photo) => {
    const occurrence = seen.get(photo.url) ?? 0;
    seen.set(photo.url, occurrence + 1);
    return { photo, key: `${occurrence}\n${photo.url}` };
  });
}

/** Runs the queue once: due listings are claimed, probed and settled. Returns how many were claimed. */
export async function runPhotoProbes(db: Database, settings: ProbeSettings): Promise<number> {
  const now = settings.now ?? (() => new Date());
  const timeoutMs = settings.timeoutMs ?? PROBE_TIMEOUT_MS;
  // Room for every request of a listing's slice, each hop timing out, HEAD then GET.
  const leaseMs = PROBE_PHOTOS_PER_LISTING * (PROBE_MAX_REDIRECTS + 1) * 2 * timeoutMs + 60_000;
  const claimed = await db.systemTx((tx) => queue.claimDueProbes(tx, now(), leaseMs, PROBE_LISTINGS_PER_RUN));
  const agents = deliveryAgents(settings.allowPrivate);
  for (const probe of claimed) {
    try {
      await probeListing(db, probe, { ...settings, timeoutMs, now }, agents);
    } catch (error) {
      // The lease brings the row back: logged, never lost.
      settings.log?.error({ err: error, propertyId: probe.propertyId }, 'photo probe failed');
    }
  }
  return claimed.length;
}

async function probeListing(
  db: Database,
  probe: queue.ClaimedProbe,
  settings: ProbeSettings & { timeoutMs: number; now: () => Date },
  agents: ReturnType<typeof deliveryAgents>,
): Promise<void> {
  const { organizationId, propertyId } = probe;
  // eslint-disable-next-line no-restricted-syntax -- a worker job: no caller, the queue row's organization
  const photos = await db.tenantTx(organizationId, (tx) =>
    lockPropertyPhotos(tx, organizationId, propertyId),
  );
  if (photos === null) return; // The listing went, and its queue row with it.
  const outcomes = new Map<string, ProbeOutcome>();
  for (const { photo, key } of occurrences(photos).filter((entry) => needsProbe(entry.photo))) {
    if (outcomes.size >= PROBE_PHOTOS_PER_LISTING) break;
    outcomes.set(
      key,
      await probeContentType(photo.url, { agents, timeoutMs: settings.timeoutMs, lookup: settings.lookup }),
    );
  }
  const failures = [...outcomes].filter(
    (entry): entry is [string, { failure: string }] => 'failure' in entry[1],
  );
  const attempts = failures.length > 0 ? probe.attempts + 1 : probe.attempts;
  const givingUp = attempts >= settings.retryDelaysMs.length;
  for (const [key, { failure }] of failures) {
    settings.log?.warn(
      { organizationId, propertyId, url: key.split('\n')[1], failure, attempts, givingUp },
      'photo probe failed',
    );
  }

  // eslint-disable-next-line no-restricted-syntax -- a worker job: no caller, the queue row's organization
  await db.tenantTx(organizationId, async (tx) => {
    // Read again under the row lock: the list may have changed while the addresses were asked, and an
    // answer goes only to the photo with the same URL at the same occurrence.
    const current = await lockPropertyPhotos(tx, organizationId, propertyId);
    if (current === null) return;
    const probedAt = settings.now().toISOString();
    let changed = false;
    const next = occurrences(current).map(({ photo, key }) => {
      const outcome = outcomes.get(key);
      if (outcome === undefined || !needsProbe(photo)) return photo;
      if ('failure' in outcome && !givingUp) return photo;
      changed = true;
      return { ...photo, contentType: 'failure' in outcome ? null : outcome.contentType, probedAt };
    });
    if (changed) {
      const row = await updatePropertyPhotos(tx, organizationId, propertyId, next);
      if (row) {
        await recordEvent(tx, {
          type: PropertyUpdated.type,
          data: { property: eventProperty(row), changes: ['photos'] },
          actor: ACTOR,
        });
      }
    }
    if (!next.some(needsProbe)) return queue.deleteProbe(tx, organizationId, propertyId);
    // Failures wait their delay; photos past this run's slice are due at once.
    const delayMs = failures.length > 0 ? (settings.retryDelaysMs[attempts] ?? 0) : 0;
    return queue.delayProbe(tx, organizationId, propertyId, {
      dueAt: new Date(settings.now().getTime() + delayMs),
      attempts,
      lastError: failures[0]?.[1].failure ?? null,
    });
  });
}
