/**
 * The mixed load of `npm run topology`: portal listings and CRM lists (reads), contacts created with
 * the secret key, leads and bookings sent with the publishable key, as integrators and visitors would,
 * through a load balancer of its own: requests go round-robin to the API processes, and a request
 * whose connection fails (its process was killed) is sent again to the next one with the same
 * Idempotency-Key, as Stripe's clients retry.
 */
import { randomUUID } from 'node:crypto';

export interface LoadKeys {
  /** The agency whose CRM and portal take the writes. */
  secret: string;
  publishable: string;
  /** Another agency's portal, only read (its reads can go to the replica: it has no recent write). */
  readOnlyPortal: string;
}

export interface LoadStats {
  /** Answers by HTTP status (000: no answer from any process). */
  statuses: Map<number, number>;
  /** Milliseconds of every answered request, for the percentiles. */
  latencies: number[];
  /** Requests sent again after a connection failed. */
  retried: number;
  /** Answers by operation and status ("lead 429"), to tell which part of the mix a status came from. */
  byOperation: Map<string, number>;
  /** What identifies each write acknowledged with 2xx: contact and appointment ids, leads' phones. */
  acked: { contacts: Set<string>; leadPhones: Set<string>; appointments: Set<string> };
}

export function emptyStats(): LoadStats {
  return {
    statuses: new Map(),
    latencies: [],
    retried: 0,
    byOperation: new Map(),
    acked: { contacts: new Set(), leadPhones: new Set(), appointments: new Set() },
  };
}

/** An answer's status and its `data` (what the load reads of it). */
interface Answer {
  status: number;
  body: { data?: Record<string, unknown> } | null;
}

interface Call {
  /** Names the operation in `byOperation`. */
  operation: string;
  method: 'GET' | 'POST';
  path: string;
  key: string;
  body?: unknown;
}

/** A load balancer over `urls` (the live ones are asked), with a request counter. */
export class Balancer {
  private next = 0;

  constructor(private readonly urls: () => string[]) {}

  /** One request; on a connection failure, the same request to the next process (up to 6 tries). */
  async send(stats: LoadStats, call: Call): Promise<Answer | null> {
    const idempotencyKey = call.method === 'POST' ? randomUUID() : undefined;
    for (let attempt = 0; attempt < 6; attempt++) {
      const urls = this.urls();
      const base = urls[this.next++ % urls.length] as string;
      const started = performance.now();
      try {
        const response = await fetch(`${base}${call.path}`, {
          method: call.method,
          headers: {
            'x-api-key': call.key,
            ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
            ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
          },
          ...(call.body === undefined ? {} : { body: JSON.stringify(call.body) }),
          signal: AbortSignal.timeout(30_000),
        });
        const body = (await response.json().catch(() => null)) as Answer['body'];
        stats.latencies.push(performance.now() - started);
        stats.statuses.set(response.status, (stats.statuses.get(response.status) ?? 0) + 1);
        const operation = `${call.operation} ${response.status}`;
        stats.byOperation.set(operation, (stats.byOperation.get(operation) ?? 0) + 1);
        return { status: response.status, body };
      } catch {
        stats.retried += 1;
        await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
      }
    }
    stats.statuses.set(0, (stats.statuses.get(0) ?? 0) + 1);
    return null;
  }
}

/** A Spanish mobile number no other request of this run uses (a lead is found again by its phone). */
let phoneSequence = Math.floor(Math.random() * 5e7);
const phone = () => `+346${String(phoneSequence++ % 1e8).padStart(8, '0')}`;

/**
 * One operation of the mix, picked by weight: 45 % listings of a portal nobody writes to, 15 % CRM
 * lists, 20 % contacts created, 12 % leads, 8 % bookings (availability, then a slot) on the other.
 */
export async function oneOperation(balancer: Balancer, stats: LoadStats, keys: LoadKeys, slugs: string[]) {
  const pick = Math.random() * 100;
  if (pick < 45) {
    await balancer.send(stats, {
      operation: 'listing',
      method: 'GET',
      path: '/v1/properties?pageSize=20',
      key: keys.readOnlyPortal,
    });
  } else if (pick < 60) {
    await balancer.send(stats, {
      operation: 'contacts',
      method: 'GET',
      path: '/v1/contacts?pageSize=20',
      key: keys.secret,
    });
  } else if (pick < 80) {
    const body = { firstName: 'Load', lastName: `Test ${Math.floor(Math.random() * 1e6)}`, phone: phone() };
    const answer = await balancer.send(stats, {
      operation: 'contact',
      method: 'POST',
      path: '/v1/contacts',
      key: keys.secret,
      body,
    });
    if (answer && answer.status < 300) stats.acked.contacts.add(String(answer.body?.data?.id));
  } else if (pick < 92) {
    // A lead's receipt carries no id (SPEC): it is found again by its visitor's phone.
    const body = { firstName: 'Visitor', phone: phone(), message: 'Is it still available?' };
    const answer = await balancer.send(stats, {
      operation: 'lead',
      method: 'POST',
      path: '/v1/leads',
      key: keys.publishable,
      body,
    });
    if (answer && answer.status < 300) stats.acked.leadPhones.add(body.phone);
  } else {
    await book(balancer, stats, keys, slugs);
  }
}

/** A visitor's booking: the agent's free slots, then one of them (409 when another visitor took it). */
async function book(balancer: Balancer, stats: LoadStats, keys: LoadKeys, slugs: string[]) {
  const slug = slugs[Math.floor(Math.random() * slugs.length)];
  if (slug === undefined) return;
  const availability = await balancer.send(stats, {
    operation: 'availability',
    method: 'GET',
    path: `/v1/booking/${slug}/availability`,
    key: keys.publishable,
  });
  // Booking answers are doubly wrapped (SPEC): {data: {data: ...}}.
  const inner = (answer: Answer | null) =>
    (answer?.body?.data?.data ?? null) as Record<string, unknown> | null;
  const days = (inner(availability)?.availableDates ?? []) as { date: string; slots: string[] }[];
  const day = days[Math.floor(Math.random() * days.length)];
  const slot = day?.slots[Math.floor(Math.random() * day.slots.length)];
  if (!day || !slot) return;
  const body = { firstName: 'Booker', phone: phone(), date: day.date, startTime: slot };
  const answer = await balancer.send(stats, {
    operation: 'booking',
    method: 'POST',
    path: `/v1/booking/${slug}`,
    key: keys.publishable,
    body,
  });
  if (answer && answer.status < 300) stats.acked.appointments.add(String(inner(answer)?.appointmentId));
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}
