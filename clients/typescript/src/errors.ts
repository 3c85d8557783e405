import type { ErrorBody, ErrorCode, ErrorDetail, RateLimit } from './types.ts';

/**
 * The API answered with an error (after any retries). Carries the envelope's fields: `code`,
 * `message`, `details` (400s), `requestId`, the rate-limit headers and `retryAfter` (429).
 * An answer that is not the API's envelope (a proxy's HTML page, ...) has code `UNEXPECTED_RESPONSE`.
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: ErrorCode | 'UNEXPECTED_RESPONSE';
  /** `[{field, message}]` of a 400 VALIDATION_ERROR; empty otherwise. */
  readonly details: ErrorDetail[];
  readonly requestId: string | undefined;
  readonly rateLimit: RateLimit | undefined;
  /** `Retry-After` in seconds (429s, and the 409 of a request still in progress). */
  readonly retryAfter: number | undefined;
  /** The whole `error` object, with the fields some answers add (`reason`, `windowExpiresAt`, `existingId`, ...). */
  readonly error: ErrorBody | undefined;
  readonly headers: Headers;

  constructor(init: {
    status: number;
    code: ErrorCode | 'UNEXPECTED_RESPONSE';
    message: string;
    headers: Headers;
    error?: ErrorBody;
    requestId?: string;
    rateLimit?: RateLimit;
    retryAfter?: number;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.error?.details ?? [];
    this.requestId = init.requestId;
    this.rateLimit = init.rateLimit;
    this.retryAfter = init.retryAfter;
    this.error = init.error;
    this.headers = init.headers;
  }
}

/** The API could not be reached, or did not answer within `timeoutMs`, on every attempt. */
export class ApiConnectionError extends Error {
  override readonly name = 'ApiConnectionError';
  /** `true` when the last attempt timed out (the request may have reached the server). */
  readonly timedOut: boolean;

  constructor(message: string, options: { cause: unknown; timedOut: boolean }) {
    super(message, { cause: options.cause });
    this.timedOut = options.timedOut;
  }
}

/** Why `verifyWebhook` refused a delivery. */
export type WebhookVerificationReason =
  'MALFORMED_HEADER' | 'BAD_SIGNATURE' | 'TIMESTAMP_OUT_OF_TOLERANCE' | 'MALFORMED_BODY';

/** A webhook delivery that must not be trusted (answer it with a 400). */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  readonly reason: WebhookVerificationReason;

  constructor(reason: WebhookVerificationReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
