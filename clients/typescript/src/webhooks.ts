import { WebhookVerificationError } from './errors.ts';
import type { WebhookEvent } from './types.ts';

export interface VerifyWebhookOptions {
  /** Largest accepted distance between the signature's timestamp and this clock. Default 300 (5 minutes). */
  toleranceSeconds?: number;
}

const encoder = new TextEncoder();

/**
 * Checks a webhook delivery and returns its event. `rawBody` is the request body exactly as
 * received (bytes or text, never re-serialised JSON); `signatureHeader` is `X-Service-Signature`
 * (`t=<unix seconds>,v1=<hex>[,v1=<hex>]`); `secret` is the subscription's `whsec_…` secret, or
 * several while you rotate it. Throws a WebhookVerificationError naming what is wrong: a malformed
 * header, no matching signature, a timestamp outside the tolerance, or a body that is not an event.
 *
 * Uses WebCrypto, so it runs on Node >= 20, Deno, Bun, edge runtimes and browsers alike; the
 * signature comparison is `crypto.subtle.verify`'s, which is constant-time.
 */
export async function verifyWebhook(
  rawBody: string | Uint8Array | ArrayBuffer,
  signatureHeader: string | readonly string[] | null | undefined,
  secret: string | readonly string[],
  options: VerifyWebhookOptions = {},
): Promise<WebhookEvent> {
  const toleranceSeconds = options.toleranceSeconds ?? 300;
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((value) => typeof value !== 'string' || value === '')) {
    throw new TypeError('verifyWebhook: the secret must be the subscription secret (whsec_…)');
  }
  const { timestamp, signatures } = parseHeader(signatureHeader);

  const body = typeof rawBody === 'string' ? encoder.encode(rawBody) : new Uint8Array(rawBody);
  const prefix = encoder.encode(`${timestamp}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  if (!(await anySignatureMatches(signed, signatures, secrets))) {
    throw new WebhookVerificationError(
      'BAD_SIGNATURE',
      'No v1 signature of X-Service-Signature matches: check the secret and pass the raw request body, not parsed JSON',
    );
  }

  const age = Math.floor(Date.now() / 1000) - timestamp;
  if (Math.abs(age) > toleranceSeconds) {
    throw new WebhookVerificationError(
      'TIMESTAMP_OUT_OF_TOLERANCE',
      age > 0
        ? `The delivery was signed ${age} s ago, more than the ${toleranceSeconds} s tolerance (a replay?)`
        : `The delivery is signed ${-age} s in the future, more than the ${toleranceSeconds} s tolerance (check the clock)`,
    );
  }

  let event: unknown;
  try {
    event = JSON.parse(new TextDecoder().decode(body));
  } catch {
    throw new WebhookVerificationError('MALFORMED_BODY', 'The delivery body is not JSON');
  }
  const envelope = event as { id?: unknown; type?: unknown } | null;
  if (typeof envelope !== 'object' || typeof envelope?.id !== 'string' || typeof envelope.type !== 'string') {
    throw new WebhookVerificationError(
      'MALFORMED_BODY',
      'The delivery body is not an event envelope (id, type)',
    );
  }
  return event as WebhookEvent;
}

/** `t=<integer>` and every `v1=` value; other schemes (`v0=`, ...) are ignored, as Stripe does. */
function parseHeader(header: string | readonly string[] | null | undefined) {
  const text = typeof header === 'string' ? header : (header ?? []).join(',');
  if (text.trim() === '') {
    throw new WebhookVerificationError('MALFORMED_HEADER', 'The X-Service-Signature header is missing');
  }
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of text.split(',')) {
    const separator = part.indexOf('=');
    const key = part.slice(0, separator).trim();
    const value = part.slice(separator + 1).trim();
    if (separator < 0) continue;
    if (key === 't' && /^\d{1,15}$/.test(value)) timestamp = Number(value);
    if (key === 'v1') signatures.push(value);
  }
  if (timestamp === undefined) {
    throw new WebhookVerificationError('MALFORMED_HEADER', 'X-Service-Signature has no t=<unix seconds>');
  }
  if (signatures.length === 0) {
    throw new WebhookVerificationError('MALFORMED_HEADER', 'X-Service-Signature has no v1= signature');
  }
  return { timestamp, signatures };
}

async function anySignatureMatches(
  signed: Uint8Array<ArrayBuffer>,
  signatures: string[],
  secrets: string[],
): Promise<boolean> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle)
    throw new Error('verifyWebhook needs WebCrypto (crypto.subtle): Node >= 20 or a browser over https');
  // A value that is not 64 hex characters cannot match; it is skipped, not compared.
  const candidates = signatures.filter((value) => /^[0-9a-f]{64}$/i.test(value)).map(hexBytes);
  for (const secret of secrets) {
    const key = await subtle.importKey(
      'raw',
      encoder.encode(secret),
      { name: 'HMAC', hash: 'SHA-256' },
      false,
      ['verify'],
    );
    for (const candidate of candidates) {
      if (await subtle.verify('HMAC', key, candidate, signed)) return true;
    }
  }
  return false;
}

function hexBytes(hex: string): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}
