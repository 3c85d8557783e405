import http from 'node:http';
import https from 'node:https';
import type { Lookup, deliveryAgents } from './webhooks.ssrf.ts';

/** The part of a receiver's answer kept in the delivery log. */
export const RESPONSE_SNIPPET_BYTES = 2048;
/** The answer's headers kept in the delivery log: the first 30, 4 KB in all. */
const RESPONSE_HEADERS_MAX = 30;
const RESPONSE_HEADERS_BYTES = 4096;

/** The first headers of an answer, lower-cased, until the count or the byte budget runs out. */
export function keptHeaders(raw: readonly string[]): Record<string, string> {
  const kept: Record<string, string> = {};
  let bytes = 0;
  for (let i = 0; i + 1 < raw.length && Object.keys(kept).length < RESPONSE_HEADERS_MAX; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    const value = raw[i + 1] as string;
    bytes += name.length + value.length;
    if (bytes > RESPONSE_HEADERS_BYTES) break;
    kept[name] = name in kept ? `${kept[name]}, ${value}` : value;
  }
  return kept;
}

export interface SendOutcome {
  /** HTTP status of the answer; null when none came. */
  statusCode: number | null;
  durationMs: number;
  /** What went wrong without an answer (timeout, refused, blocked address, ...). */
  error: string | null;
  /** Up to 2 KB of the answer's body. */
  responseBody: string | null;
  /** The answer's first headers (keptHeaders); null when none came. */
  responseHeaders: Record<string, string> | null;
  /** The address was refused by the SSRF guard: never retried. */
  blocked: boolean;
}

export interface SendOptions {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  agents: ReturnType<typeof deliveryAgents>;
  lookup?: Lookup;
}

/**
 * One POST of the exact bytes, through the filtering agent, without following redirects (a 3xx is
 * an answer like any other). The time limit covers connecting, the headers and the body.
 */
export function sendWebhook(options: SendOptions): Promise<SendOutcome> {
  const started = performance.now();
  const url = new URL(options.url);
  const secure = url.protocol === 'https:';
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: Omit<SendOutcome, 'durationMs'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...outcome, durationMs: Math.round(performance.now() - started) });
    };
    const request = (secure ? https : http).request(
      url,
      {
        method: 'POST',
        agent: secure ? options.agents.https : options.agents.http,
        headers: { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) },
        ...(options.lookup ? { lookup: options.lookup } : {}),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        response.on('data', (chunk: Buffer) => {
          if (kept < RESPONSE_SNIPPET_BYTES) {
            chunks.push(chunk.subarray(0, RESPONSE_SNIPPET_BYTES - kept));
            kept += Math.min(chunk.length, RESPONSE_SNIPPET_BYTES - kept);
          }
        });
        response.on('end', () =>
          finish({
            statusCode: response.statusCode ?? null,
            error: null,
            responseBody: Buffer.concat(chunks).toString('utf8'),
            responseHeaders: keptHeaders(response.rawHeaders),
            blocked: false,
          }),
        );
        response.on('error', (error) =>
          finish({
            statusCode: response.statusCode ?? null,
            error: error.message,
            responseBody: null,
            responseHeaders: keptHeaders(response.rawHeaders),
            blocked: false,
          }),
        );
      },
    );
    const timer = setTimeout(() => {
      finish({
        statusCode: null,
        error: `timeout after ${options.timeoutMs} ms`,
        responseBody: null,
        responseHeaders: null,
        blocked: false,
      });
      request.destroy(new Error('timeout'));
    }, options.timeoutMs);
    request.on('error', (error) => {
      const blocked = /is not allowed\. Because/.test(error.message);
      finish({
        statusCode: null,
        error: blocked
          ? `blocked: ${error.message}`
          : `${(error as NodeJS.ErrnoException).code ?? 'ERROR'}: ${error.message}`,
        responseBody: null,
        responseHeaders: null,
        blocked,
      });
    });
    request.end(options.body);
  });
}
