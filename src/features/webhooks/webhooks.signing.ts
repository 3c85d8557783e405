import { createHmac, randomBytes } from 'node:crypto';

/** `whsec_` + 32 random bytes in base64: a Standard Webhooks secret, and a Stripe-scheme key as text. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * `X-Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]` (DESIGN.md): lowercase hex
 * HMAC-SHA256 of `<t>.<raw body>` keyed with each secret's UTF-8 bytes, no spaces. During a
 * rotation the old secret signs too, so either verifies.
 */
export function serviceSignature(body: string, secrets: readonly string[], timestamp: number): string {
  const signatures = secrets.map(
    (secret) => `v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`,
  );
  return [`t=${timestamp}`, ...signatures].join(',');
}

/**
 * Standard Webhooks `webhook-signature`: space-separated `v1,<base64>` HMAC-SHA256 of
 * `<msg id>.<timestamp>.<body>`, keyed with the base64-decoded part of the `whsec_` secret.
 */
export function standardSignature(
  messageId: string,
  body: string,
  secrets: readonly string[],
  timestamp: number,
): string {
  return secrets
    .map((secret) => {
      const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice(6) : secret, 'base64');
      return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
    })
    .join(' ');
}
