// What a photo's address answers (decision 0266): its media type, asked through the same SSRF guard as
// webhook deliveries (request-filtering-agent checks the address the socket connects to, every hop), with
// a short time limit and a few redirects. HEAD first; a server that refuses HEAD (405, 501) is asked
// for its first byte with GET. Nothing of the body is read.
import http from 'node:http';
import https from 'node:https';
import type { deliveryAgents, Lookup } from '../webhooks/index.ts';

/** The media types recorded; any other answer records null (not an image Kyero or a browser takes). */
export const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
/** Redirects followed, each to an address checked again. */
export const PROBE_MAX_REDIRECTS = 3;

/** A probe's outcome: the media type answered (null: not an image, gone, refused), or a failure worth retrying. */
export type ProbeOutcome = { contentType: string | null; reason?: string } | { failure: string };

export interface ProbeOptions {
  agents: ReturnType<typeof deliveryAgents>;
  timeoutMs: number;
  lookup?: Lookup;
}

interface Answer {
  status: number;
  contentType: string | undefined;
  location: string | undefined;
}

function ask(url: URL, method: 'HEAD' | 'GET', options: ProbeOptions): Promise<Answer> {
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const request = (secure ? https : http).request(
      url,
      {
        method,
        agent: secure ? options.agents.https : options.agents.http,
        headers: { accept: 'image/*', ...(method === 'GET' ? { range: 'bytes=0-0' } : {}) },
        timeout: options.timeoutMs,
        ...(options.lookup ? { lookup: options.lookup } : {}),
      },
      (response) => {
        resolve({
          status: response.statusCode ?? 0,
          contentType: response.headers['content-type'],
          location: response.headers.location,
        });
        // Only the headers matter: the body (a GET's first byte, an error page) is dropped.
        response.destroy();
      },
    );
    request.on('timeout', () => request.destroy(new Error(`timeout after ${options.timeoutMs} ms`)));
    request.on('error', reject);
    request.end();
  });
}

/** The media type of a Content-Type header, lower case, without parameters. */
function mediaType(header: string | undefined): string | null {
  const type = header?.split(';')[0]?.trim().toLowerCase();
  return type !== undefined && IMAGE_TYPES.has(type) ? type : null;
}

/**
 * Asks `url` for its media type. A blocked address, a non-http(s) redirect, too many redirects or a 4xx
 * are answers (null, not retried); a timeout, a network error, 429 or 5xx are failures (retried).
 */
export async function probeContentType(url: string, options: ProbeOptions): Promise<ProbeOutcome> {
  let target = new URL(url);
  for (let hop = 0; hop <= PROBE_MAX_REDIRECTS; hop++) {
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return { contentType: null, reason: `not http(s): ${target.protocol}` };
    }
    let answer: Answer;
    try {
      answer = await ask(target, 'HEAD', options);
      if (answer.status === 405 || answer.status === 501) answer = await ask(target, 'GET', options);
    } catch (error) {
      const message = (error as Error).message;
      // request-filtering-agent's refusal of a private, loopback, link-local or metadata address.
      if (/is not allowed\. Because/.test(message))
        return { contentType: null, reason: `blocked: ${message}` };
      return { failure: `${(error as NodeJS.ErrnoException).code ?? 'ERROR'}: ${message}` };
    }
    if (answer.status >= 300 && answer.status < 400 && answer.location !== undefined) {
      target = new URL(answer.location, target);
      continue;
    }
    if (answer.status === 429 || answer.status >= 500) return { failure: `HTTP ${answer.status}` };
    if (answer.status >= 200 && answer.status < 300) return { contentType: mediaType(answer.contentType) };
    return { contentType: null, reason: `HTTP ${answer.status}` };
  }
  return { contentType: null, reason: `more than ${PROBE_MAX_REDIRECTS} redirects` };
}
