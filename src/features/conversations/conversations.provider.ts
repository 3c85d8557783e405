import { setTimeout as sleep } from 'node:timers/promises';
import { randomBase62 } from '../../platform/ids/ids.ts';

/**
 * The messaging platform, as the send path sees it. `sandbox` records and sends nothing (the test
 * organization always uses it); `http` is a client of a Cloud-API-shaped platform
 * (`POST {MESSAGING_API_URL}/{phoneNumberId}/messages`, bearer `MESSAGING_API_TOKEN`).
 */
export interface OutboundMessage {
  /** The platform's id of the sending number. */
  phoneNumberId: string;
  /** E.164 of the recipient. */
  to: string;
  text?: string;
  template?: { name: string; language: string; variables: Record<string, string> };
  /** The client's Idempotency-Key, passed on so the platform can drop a repeat. */
  idempotencyKey?: string;
}

export type SendResult = { ok: true; chatMessageId: string } | { ok: false; reason: string };

export interface MessagingProvider {
  readonly name: 'sandbox' | 'http';
  /** Never throws: a refusal, an error status, a timeout or a broken answer is `{ok: false}`. */
  send(message: OutboundMessage): Promise<SendResult>;
  /** True when the platform will not send receipts itself, so the service simulates DELIVERED. */
  readonly simulatesReceipts: boolean;
}

export const sandboxProvider: MessagingProvider = {
  name: 'sandbox',
  simulatesReceipts: true,
  async send() {
    return { ok: true, chatMessageId: `sandbox.${randomBase62(24)}` };
  },
};

export interface HttpProviderOptions {
  apiUrl: string;
  token: string | undefined;
  timeoutMs: number;
  /** Pause before the one retry of a 5xx or 429 answer. */
  retryDelayMs?: number;
}

/** The Cloud API request body: free text, or a template with named body parameters. */
function requestBody(message: OutboundMessage): Record<string, unknown> {
  const base = {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: message.to.replace(/^\+/, ''),
  };
  if (message.template) {
    const parameters = Object.entries(message.template.variables).map(([name, text]) => ({
      type: 'text',
      parameter_name: name,
      text,
    }));
    return {
      ...base,
      type: 'template',
      template: {
        name: message.template.name,
        language: { code: message.template.language },
        components: parameters.length > 0 ? [{ type: 'body', parameters }] : [],
      },
    };
  }
  return { ...base, type: 'text', text: { preview_url: false, body: message.text ?? '' } };
}

/** The platform's own words about a refusal (`error.message` in the Cloud API), kept short. */
function refusalText(status: number, text: string): string {
  let detail = text.slice(0, 300);
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown; code?: unknown } };
    if (typeof parsed.error?.message === 'string') {
      detail = `${parsed.error.message}${parsed.error.code !== undefined ? ` (code ${String(parsed.error.code)})` : ''}`;
    }
  } catch {
    // Not JSON: the raw text is all there is.
  }
  return `the messaging platform answered ${status}${detail ? `: ${detail}` : ''}`;
}

/**
 * One call with the time limit. 4xx is final (the request itself is wrong); a 5xx or 429 is tried
 * once more after a short pause, with the same Idempotency-Key. A timeout is not retried: the
 * platform may have sent it, and the client's retry with its Idempotency-Key is the safe path.
 */
export function httpProvider(options: HttpProviderOptions): MessagingProvider {
  const base = options.apiUrl.replace(/\/+$/, '');
  async function attempt(message: OutboundMessage): Promise<SendResult & { retry?: boolean }> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    if (message.idempotencyKey) headers['idempotency-key'] = message.idempotencyKey;
    let response: Response;
    try {
      response = await fetch(`${base}/${encodeURIComponent(message.phoneNumberId)}/messages`, {
        method: 'POST',
        headers,
        body: JSON.stringify(requestBody(message)),
        redirect: 'manual',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'TimeoutError' || name === 'AbortError') {
        return { ok: false, reason: `the messaging platform did not answer within ${options.timeoutMs} ms` };
      }
      return {
        ok: false,
        retry: true,
        reason: `the messaging platform could not be reached (${(error as Error).message})`,
      };
    }
    let text: string;
    try {
      text = await response.text();
    } catch {
      return { ok: false, reason: `the messaging platform's answer was cut off (${response.status})` };
    }
    if (!response.ok) {
      return {
        ok: false,
        retry: response.status >= 500 || response.status === 429,
        reason: refusalText(response.status, text),
      };
    }
    try {
      const parsed = JSON.parse(text) as { messages?: { id?: unknown }[] };
      const id = parsed.messages?.[0]?.id;
      if (typeof id === 'string' && id.length > 0 && id.length <= 256) return { ok: true, chatMessageId: id };
    } catch {
      // Falls through to the refusal below.
    }
    return { ok: false, reason: 'the messaging platform accepted the request but returned no message id' };
  }

  return {
    name: 'http',
    simulatesReceipts: false,
    async send(message) {
      const first = await attempt(message);
      if (first.ok || !first.retry) return strip(first);
      await sleep(options.retryDelayMs ?? 250);
      return strip(await attempt(message));
    },
  };
}

function strip(result: SendResult & { retry?: boolean }): SendResult {
  return result.ok ? { ok: true, chatMessageId: result.chatMessageId } : { ok: false, reason: result.reason };
}
