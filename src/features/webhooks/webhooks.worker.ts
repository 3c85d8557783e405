import { CONFIG_DEFAULTS } from '../../config.ts';
import type { Database } from '../../db/database.ts';
import { SecretsError, type SecretBox } from '../../platform/crypto/secret-box.ts';
import { openSecretBox } from '../../platform/crypto/secrets-key.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { envelopeOf } from '../../platform/events/envelope.ts';
import { recordEvent } from '../../platform/events/record.ts';
import { newId, randomBase62 } from '../../platform/ids/ids.ts';
import type { Job } from '../../platform/jobs/scheduler.ts';
import { WebhookDisabled } from './webhooks.events.ts';
import { countAttempt, deliveryMetrics } from './webhooks.metrics.ts';
import { secretContext } from './webhooks.secrets.ts';
import { sendWebhook, type SendOutcome } from './webhooks.sender.ts';
import { serviceSignature, standardSignature } from './webhooks.signing.ts';
import { deliveryAgents, type Lookup } from './webhooks.ssrf.ts';
import * as store from './webhooks.store.ts';
import * as queue from './webhooks.queue.store.ts';

export const USER_AGENT = 'agency-crm-webhooks/1.0 (+https://github.com/agency-crm)';
const SYSTEM: Actor = { kind: 'SYSTEM', userId: null };

export interface DeliveryWorkerSettings {
  /** WEBHOOK_RETRY_DELAYS_MS: the delay before each attempt (the first is usually 0). */
  webhookRetryDelaysMs: readonly number[];
  webhookTimeoutMs: number;
  webhookAllowPrivateUrls: boolean;
  /** A subscription failing for this long is disabled (WEBHOOK_DISABLE_AFTER_HOURS, default 72 h). */
  webhookDisableAfterMs?: number;
  /** Deliveries in flight per process, and per subscription (a slow receiver holds only its own). */
  concurrency?: number;
  perSubscription?: number;
  /** How often an idle worker looks for due deliveries. */
  pollMs?: number;
  /** Tests resolve names like `rebind.test` with their own resolver. */
  lookup?: Lookup;
  /** Opens the sealed signing secrets; the process's own key when unset (tests without config). */
  secrets?: SecretBox;
}

/** Retried: no answer (network error, timeout), 429 and 5xx. Never: 2xx, 3xx, other 4xx, blocked address. */
export function isRetryable(outcome: SendOutcome): boolean {
  if (outcome.blocked) return false;
  if (outcome.statusCode === null) return true;
  return outcome.statusCode === 429 || outcome.statusCode >= 500;
}

/** A `Retry-After` value (delay-seconds or an HTTP-date) in milliseconds from `now`; null when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | null {
  if (value === undefined) return null;
  const text = value.trim();
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/**
 * The wait before the next attempt: the schedule's, or longer when a 429 or 503 asked for it with
 * `Retry-After`, but never longer than the schedule's longest delay (a receiver cannot park its
 * deliveries for days, and the schedule's total still bounds a delivery's life).
 */
export function nextDelay(outcome: SendOutcome, scheduled: number, schedule: readonly number[]): number {
  if (outcome.statusCode !== 429 && outcome.statusCode !== 503) return scheduled;
  const asked = retryAfterMs(outcome.responseHeaders?.['retry-after']);
  if (asked === null) return scheduled;
  return Math.max(scheduled, Math.min(asked, Math.max(...schedule)));
}

/** The exact bytes sent: the SPEC envelope, `event` first, with `sequence`. The same on every attempt. */
export function envelopeBody(event: queue.ClaimedDelivery['event']): string {
  return JSON.stringify(envelopeOf(event));
}

/**
 * Headers of one attempt, signed now (every attempt is signed afresh: receivers allow 5 minutes)
 * with the plaintext `secrets`, opened for this attempt only.
 */
export function signedHeaders(
  delivery: queue.ClaimedDelivery,
  secrets: readonly string[],
  body: string,
  now = Date.now(),
) {
  const timestamp = Math.floor(now / 1000);
  return {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'x-service-signature': serviceSignature(body, secrets, timestamp),
    'webhook-id': delivery.event.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': standardSignature(delivery.event.id, body, secrets, timestamp),
  };
}

/**
 * The delivery worker, a job of the scheduler (src/jobs.ts). Each run claims due deliveries while
 * it has free slots, sends them concurrently and returns once nothing is due and nothing is in
 * flight; the scheduler runs it again `pollMs` later. Safe with several worker processes.
 */
export class DeliveryWorker {
  private readonly inFlight = new Set<Promise<void>>();
  private readonly perSubscription = new Map<string, number>();
  private readonly agents;
  private readonly concurrency;
  private readonly perSubscriptionLimit;
  private readonly leaseMs;
  private readonly disableAfterMs;
  private readonly secrets: SecretBox;
  private stopping = false;
  private wake: (() => void) | null = null;
  /** Successful attempts waiting to be written together (see flush). */
  private successes: { success: queue.Success; resolve: () => void; reject: (error: unknown) => void }[] = [];
  private flushing: Promise<void> = Promise.resolve();
  private flushTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: Database,
    private readonly settings: DeliveryWorkerSettings,
    private readonly log: {
      error(obj: unknown, msg: string): void;
      debug?(obj: unknown, msg: string): void;
    } = console,
  ) {
    this.agents = deliveryAgents(settings.webhookAllowPrivateUrls);
    this.concurrency = settings.concurrency ?? 64;
    this.perSubscriptionLimit = settings.perSubscription ?? 16;
    // Longer than any attempt can take, so a live worker never loses its claim.
    this.leaseMs = 2 * settings.webhookTimeoutMs + 1_000;
    this.disableAfterMs = settings.webhookDisableAfterMs ?? CONFIG_DEFAULTS.webhookDisableAfterMs;
    this.secrets = settings.secrets ?? openSecretBox();
  }

  job(): Job {
    return {
      name: 'webhooks.deliver',
      intervalMs: this.settings.pollMs ?? 100,
      run: () => this.run(),
      stop: () => this.stop(),
    };
  }

  /** Claims and sends until nothing is due and nothing is in flight. */
  async run(): Promise<void> {
    while (!this.stopping) {
      const free = this.concurrency - this.inFlight.size;
      if (free > 0) {
        const claimed = await this.claim(Math.min(free, 64));
        if (claimed.length > 0)
          this.log.debug?.({ claimed: claimed.length, inFlight: this.inFlight.size }, 'claimed');
        for (const delivery of claimed) this.launch(delivery);
        if (claimed.length > 0 && claimed.length === Math.min(free, 64)) continue;
        if (claimed.length === 0 && this.inFlight.size === 0) return;
      }
      // Wait for a slot to free up, or for new deliveries to become due.
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, this.settings.pollMs ?? 100).unref();
      });
      this.wake = null;
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await Promise.all(this.inFlight);
    await this.flush();
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  private async claim(limit: number): Promise<queue.ClaimedDelivery[]> {
    const inFlight = Object.fromEntries(this.perSubscription);
    return this.db.systemTx((tx) =>
      queue.claimDue(tx, {
        limit,
        perSubscription: this.perSubscriptionLimit,
        inFlight,
        leaseMs: this.leaseMs,
        claimId: randomBase62(16),
        attemptIds: Array.from({ length: limit }, () => newId('wha')),
      }),
    );
  }

  private launch(delivery: queue.ClaimedDelivery): void {
    const id = delivery.subscriptionId;
    this.perSubscription.set(id, (this.perSubscription.get(id) ?? 0) + 1);
    const task = this.deliver(delivery)
      .catch((error: unknown) =>
        this.log.error({ err: error, deliveryId: delivery.id }, 'webhook delivery failed'),
      )
      .finally(() => {
        const left = (this.perSubscription.get(id) ?? 1) - 1;
        if (left === 0) this.perSubscription.delete(id);
        else this.perSubscription.set(id, left);
        this.inFlight.delete(task);
        this.wake?.();
      });
    this.inFlight.add(task);
  }

  /**
   * Successes are written in batches (up to 64, or after 10 ms): one transaction for many
   * deliveries instead of one each. The attempt's slot is held until its batch is written, so
   * shutdown and the claim count both see it.
   */
  private recordSuccess(success: queue.Success): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.successes.push({ success, resolve, reject });
      if (this.successes.length >= 64) void this.flush();
      else this.flushTimer ??= setTimeout(() => void this.flush(), 10);
    });
  }

  /** Writes the waiting successes in one transaction (flushes run one after the other). */
  private flush(): Promise<void> {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const batch = this.successes;
    this.successes = [];
    if (batch.length === 0) return this.flushing;
    this.flushing = this.flushing
      .then(() =>
        this.db.systemTx((tx) =>
          queue.completeSuccesses(
            tx,
            batch.map((item) => item.success),
          ),
        ),
      )
      .then(
        () => batch.forEach((item) => item.resolve()),
        (error: unknown) => batch.forEach((item) => item.reject(error)),
      );
    return this.flushing;
  }

  /** One attempt of one delivery, then its outcome written (if the claim is still ours). */
  async deliver(delivery: queue.ClaimedDelivery): Promise<void> {
    if (!delivery.enabled) {
      deliveryMetrics.completed.inc({ status: 'FAILED' });
      // eslint-disable-next-line no-restricted-syntax -- the delivery worker: the claimed delivery's organization, no request caller.
      await this.db.tenantTx(delivery.organizationId, (tx) =>
        queue.completeClaim(tx, delivery, {
          status: 'FAILED',
          retryInMs: null,
          attempt: null,
          lastError: 'subscription disabled',
          lastStatusCode: null,
        }),
      );
      return;
    }
    const body = envelopeBody(delivery.event);
    const startedAt = new Date();
    const secrets = this.openSecrets(delivery);
    if (secrets instanceof SecretsError) {
      await this.recordUnsigned(delivery, startedAt, secrets);
      return;
    }
    const headers = signedHeaders(delivery, secrets, body, startedAt.getTime());
    const requestHeaders = { ...headers, 'content-length': String(Buffer.byteLength(body)) };
    this.log.debug?.({ deliveryId: delivery.id, url: delivery.url }, 'sending');
    const outcome = await sendWebhook({
      url: delivery.url,
      body,
      headers,
      timeoutMs: this.settings.webhookTimeoutMs,
      agents: this.agents,
      lookup: this.settings.lookup,
    });
    this.log.debug?.(
      { deliveryId: delivery.id, status: outcome.statusCode, error: outcome.error, ms: outcome.durationMs },
      'sent',
    );
    const succeeded = outcome.statusCode !== null && outcome.statusCode >= 200 && outcome.statusCode < 300;
    const attemptNumber = delivery.attemptCount + 1;
    const delays = this.settings.webhookRetryDelaysMs;
    const retry = !succeeded && isRetryable(outcome) && attemptNumber < delays.length;
    const gone = outcome.statusCode === 410;
    countAttempt(succeeded ? 'success' : retry ? 'retry' : 'failed', outcome.durationMs);
    if (succeeded) {
      await this.recordSuccess({
        delivery,
        startedAt,
        durationMs: outcome.durationMs,
        statusCode: outcome.statusCode as number,
        responseBody: outcome.responseBody,
        requestHeaders,
        responseHeaders: outcome.responseHeaders,
      });
      return;
    }
    const result: queue.AttemptResult = {
      status: retry ? 'PENDING' : 'FAILED',
      retryInMs: retry ? nextDelay(outcome, delays[attemptNumber] ?? 0, delays) : null,
      attempt: {
        startedAt,
        durationMs: outcome.durationMs,
        statusCode: outcome.statusCode,
        error: outcome.error ?? `HTTP ${outcome.statusCode}`,
        responseBody: outcome.responseBody,
        requestHeaders,
        responseHeaders: outcome.responseHeaders,
      },
      lastError: outcome.error ?? `HTTP ${outcome.statusCode}`,
      lastStatusCode: outcome.statusCode,
    };
    // eslint-disable-next-line no-restricted-syntax -- the delivery worker: the claimed delivery's organization, no request caller.
    await this.db.tenantTx(delivery.organizationId, async (tx) => {
      if (!(await queue.completeClaim(tx, delivery, result))) return;
      const subscription = await queue.markFailing(tx, delivery.subscriptionId);
      if (!subscription || !subscription.enabled) return;
      const failingFor = Date.now() - (subscription.failingSince?.getTime() ?? Date.now());
      const reason = gone ? 'GONE' : failingFor >= this.disableAfterMs ? 'FAILING' : null;
      if (reason === null) return;
      await store.updateSubscription(tx, delivery.organizationId, delivery.subscriptionId, {
        enabled: false,
        disabledReason: reason,
      });
      await recordEvent(tx, {
        type: WebhookDisabled.type,
        data: {
          subscription: { id: subscription.id, url: subscription.url },
          reason,
          failingSince: subscription.failingSince?.toISOString() ?? null,
        },
        actor: SYSTEM,
      });
    });
  }

  private openSecrets(delivery: queue.ClaimedDelivery): string[] | SecretsError {
    const context = secretContext(delivery.subscriptionId);
    try {
      return delivery.secrets.map((secret) => this.secrets.reveal(secret, context));
    } catch (error) {
      if (error instanceof SecretsError) return error;
      throw error;
    }
  }

  /**
   * A secret this process cannot open (SECRETS_KEY changed without SECRETS_KEY_PREVIOUS, or an
   * altered row): nothing is sent, the attempt says why and is retried on the usual schedule, so
   * fixing the configuration lets it through. It is the operator's fault, not the receiver's: the
   * subscription is never marked failing or disabled for it.
   */
  private async recordUnsigned(delivery: queue.ClaimedDelivery, startedAt: Date, error: SecretsError) {
    this.log.error({ deliveryId: delivery.id, err: error }, 'cannot open the webhook signing secret');
    const attemptNumber = delivery.attemptCount + 1;
    const delays = this.settings.webhookRetryDelaysMs;
    const retry = attemptNumber < delays.length;
    countAttempt('not_sent', 0);
    if (!retry) deliveryMetrics.completed.inc({ status: 'FAILED' });
    const message = `not sent: cannot open the signing secret: ${error.message}`;
    // eslint-disable-next-line no-restricted-syntax -- the delivery worker: the claimed delivery's organization, no request caller.
    await this.db.tenantTx(delivery.organizationId, (tx) =>
      queue.completeClaim(tx, delivery, {
        status: retry ? 'PENDING' : 'FAILED',
        retryInMs: retry ? (delays[attemptNumber] ?? 0) : null,
        attempt: {
          startedAt,
          durationMs: 0,
          statusCode: null,
          error: message,
          responseBody: null,
          requestHeaders: null,
          responseHeaders: null,
        },
        lastError: message,
        lastStatusCode: null,
      }),
    );
  }
}

/** The scheduler job that runs the delivery worker (src/jobs.ts). */
export function webhookDeliveryJob(
  db: Database,
  settings: DeliveryWorkerSettings,
  log?: { error(obj: unknown, msg: string): void },
): Job {
  return new DeliveryWorker(db, settings, log).job();
}
