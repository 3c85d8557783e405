/**
 * Hostile bytes on a real socket: what app.inject cannot send (docs/reliability.md "Hostile input").
 * Malformed HTTP, oversized headers, bad framing, raw non-UTF-8 bytes and slow clients reach Node's
 * HTTP parser, not a route: each must still get the error envelope (or a closed connection), and a
 * client that sends its request slowly is cut off after REQUEST_TIMEOUT_MS instead of holding a
 * connection for ever.
 */
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, type Tenant } from '../helpers/factories.ts';
import { buildTestApp } from '../helpers/test-app.ts';
import { envelopeProblem } from './support/checks.ts';
import { FUZZ_RUNS, FUZZ_SEED } from './support/settings.ts';

const REQUEST_TIMEOUT_MS = 2_000;

let app: FastifyInstance;
let port: number;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildTestApp({ REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS), AUTH_FAILURE_LIMIT: '1000000' });
  tenant = await createTenant(app, { secret: { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as AddressInfo).port;
});
afterAll(async () => {
  await app.close();
});

interface RawAnswer {
  /** Everything the server wrote before closing (or before we gave up). */
  text: string;
  status: number | null;
  headers: Record<string, string>;
  body: string;
  /** When the server closed the connection, from the first byte we sent; null if it did not. */
  closedAfterMs: number | null;
}

type Step = string | Buffer | { waitMs: number };

/**
 * Sends the steps on one connection, then waits up to `waitMs` for the server to answer and close
 * (or, with `stopAtAnswer`, only until one complete answer has arrived: keep-alive leaves it open).
 */
function exchange(steps: Step[], waitMs = 5_000, stopAtAnswer = false): Promise<RawAnswer> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const started = performance.now();
    let closedAfterMs: number | null = null;
    const finish = () => {
      clearTimeout(giveUp);
      socket.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      const [head = '', ...rest] = text.split('\r\n\r\n');
      const [statusLine = '', ...headerLines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of headerLines) {
        const at = line.indexOf(':');
        if (at > 0) headers[line.slice(0, at).toLowerCase()] = line.slice(at + 1).trim();
      }
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1];
      resolve({
        text,
        status: status ? Number(status) : null,
        headers,
        body: rest.join('\r\n\r\n'),
        closedAfterMs,
      });
    };
    const giveUp = setTimeout(finish, waitMs);
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      if (!stopAtAnswer) return;
      const text = Buffer.concat(chunks).toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1];
      if (end >= 0 && length !== undefined && Buffer.byteLength(text, 'latin1') >= end + 4 + Number(length))
        finish();
    });
    socket.on('close', () => {
      closedAfterMs = performance.now() - started;
      finish();
    });
    socket.on('error', () => undefined);
    socket.on('connect', async () => {
      for (const step of steps) {
        if (socket.destroyed) return;
        if (typeof step === 'object' && !Buffer.isBuffer(step)) await sleep(step.waitMs);
        else socket.write(step);
      }
    });
  });
}

/** The answer is the error envelope with this status and code, and X-Request-Id matches it. */
function expectEnvelope(answer: RawAnswer, status: number, code: string) {
  expect(answer.status, answer.text.slice(0, 500)).toBe(status);
  expect(answer.headers['content-type'], answer.text.slice(0, 500)).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body) as { error: { code: string; message: string } };
  expect(envelopeProblem(status, body, answer.headers['x-request-id']), answer.body).toBeNull();
  expect(body.error.code, answer.body).toBe(code);
  return body.error;
}

const get = (path: string, headers: string[] = []) =>
  [
    `GET ${path} HTTP/1.1`,
    'Host: localhost',
    `X-API-Key: ${tenant.secret.key}`,
    ...headers,
    'Connection: close',
  ]
    .join('\r\n')
    .concat('\r\n\r\n');

const postHead = (path: string, contentLength: number, headers: string[] = []) =>
  [
    `POST ${path} HTTP/1.1`,
    'Host: localhost',
    `X-API-Key: ${tenant.secret.key}`,
    'Content-Type: application/json',
    `Content-Length: ${contentLength}`,
    ...headers,
    'Connection: close',
  ]
    .join('\r\n')
    .concat('\r\n\r\n');

describe('malformed HTTP gets the error envelope from the parser stage', () => {
  it('answers a request line that is not HTTP with 400 VALIDATION_ERROR', async () => {
    const error = expectEnvelope(await exchange(['HELLO THERE\r\n\r\n']), 400, 'VALIDATION_ERROR');
    expect(error.message).toMatch(/^request is not valid HTTP\/1\.1/);
  });

  it('answers a control character in a header value with 400', async () => {
    expectEnvelope(await exchange([get('/v1/me', ['X-Odd: a\u0001b'])]), 400, 'VALIDATION_ERROR');
  });

  it('answers raw non-ASCII bytes in the path with 400', async () => {
    const request = Buffer.concat([
      Buffer.from('GET /v1/contacts/'),
      Buffer.from([0xe9, 0xff]),
      Buffer.from(' HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n'),
    ]);
    expectEnvelope(await exchange([request]), 400, 'VALIDATION_ERROR');
  });

  it('answers two Content-Length headers (request smuggling) with 400', async () => {
    const head = postHead('/v1/contacts', 2, ['Content-Length: 3']);
    expectEnvelope(await exchange([head, '{}']), 400, 'VALIDATION_ERROR');
  });

  it('answers broken chunked framing with 400', async () => {
    const head = [
      'POST /v1/contacts HTTP/1.1',
      'Host: localhost',
      `X-API-Key: ${tenant.secret.key}`,
      'Content-Type: application/json',
      'Transfer-Encoding: chunked',
      'Connection: close',
    ].join('\r\n');
    expectEnvelope(await exchange([`${head}\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`]), 400, 'VALIDATION_ERROR');
  });

  it('answers headers over 16 KiB with 431 REQUEST_HEADERS_TOO_LARGE', async () => {
    const answer = await exchange([get('/v1/me', [`X-Padding: ${'a'.repeat(20_000)}`])]);
    expectEnvelope(answer, 431, 'REQUEST_HEADERS_TOO_LARGE');
  });

  it('answers an HTTP/1.1 request without Host with 400 naming the header (was an empty 400 from Node)', async () => {
    const answer = await exchange(['GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n']);
    expect(expectEnvelope(answer, 400, 'VALIDATION_ERROR').message).toBe(
      'header.Host is required on HTTP/1.1',
    );
    const old = await exchange(['GET /healthz HTTP/1.0\r\n\r\n']);
    expect(old.status, old.text).toBe(200);
  });

  it('answers a path that is not valid percent-encoded UTF-8 with 400 and a request id', async () => {
    const answer = await exchange([get('/v1/contacts/%ED%A0%80')]);
    const error = expectEnvelope(answer, 400, 'VALIDATION_ERROR');
    expect(error.message).toBe('path is not valid percent-encoded UTF-8');
  });
});

describe('odd but well-formed requests', () => {
  it('joins two X-API-Key headers into one value, which is not a key: 401', async () => {
    const answer = await exchange([get('/v1/me', [`X-API-Key: ${tenant.publishable.key}`])]);
    expectEnvelope(answer, 401, 'UNAUTHORIZED');
  });

  it('refuses an Idempotency-Key made of non-ASCII bytes, naming the header', async () => {
    const body = '{"firstName":"Ana"}';
    const head = Buffer.concat([
      Buffer.from(
        postHead('/v1/contacts', body.length).replace('Connection: close\r\n\r\n', 'Idempotency-Key: '),
      ),
      Buffer.from([0xe9, 0xff, 0x80, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41]),
      Buffer.from(`\r\nConnection: close\r\n\r\n${body}`),
    ]);
    const error = expectEnvelope(await exchange([head]), 400, 'VALIDATION_ERROR');
    expect(error.message).toMatch(/^header\.Idempotency-Key /);
  });

  it('refuses a JSON body that is not valid UTF-8 instead of storing U+FFFD', async () => {
    const body = Buffer.concat([
      Buffer.from('{"firstName":"'),
      Buffer.from([0xff, 0xfe, 0xc0, 0x80]),
      Buffer.from('"}'),
    ]);
    const error = expectEnvelope(
      await exchange([postHead('/v1/contacts', body.length), body]),
      400,
      'VALIDATION_ERROR',
    );
    expect(error.message).toBe('body is not valid UTF-8');
  });
});

describe('slow clients', () => {
  it('cuts off a body that stops arriving with 408 REQUEST_TIMEOUT', async () => {
    const answer = await exchange([postHead('/v1/contacts', 100), '{"firstName"'], 6 * REQUEST_TIMEOUT_MS);
    expectEnvelope(answer, 408, 'REQUEST_TIMEOUT');
    expect(answer.closedAfterMs).not.toBeNull();
    // Node checks every REQUEST_TIMEOUT_MS / 4 (app.ts): the cut comes within about 1.25 timeouts.
    expect(answer.closedAfterMs as number).toBeLessThan(4 * REQUEST_TIMEOUT_MS);
  });

  it('cuts off a client that drips its body a byte at a time (slowloris)', async () => {
    const drip: Step[] = [postHead('/v1/contacts', 1_000)];
    for (let i = 0; i < 40; i += 1) drip.push({ waitMs: 100 }, 'a');
    const answer = await exchange(drip, 8 * REQUEST_TIMEOUT_MS);
    expect(answer.closedAfterMs, answer.text).not.toBeNull();
    expect(answer.closedAfterMs as number).toBeLessThan(4 * REQUEST_TIMEOUT_MS);
    expect(answer.status, answer.text).toBe(408);
  });

  it('keeps answering other clients while many slow ones hang, then closes them all', async () => {
    const slow = Array.from({ length: 40 }, () =>
      exchange([postHead('/v1/contacts', 100), '{'], 8 * REQUEST_TIMEOUT_MS),
    );
    await sleep(100);
    const started = performance.now();
    const normal = await exchange([get('/v1/me')]);
    expect(normal.status, normal.text).toBe(200);
    expect(performance.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS);
    const answers = await Promise.all(slow);
    for (const answer of answers) expect(answer.closedAfterMs, answer.text).not.toBeNull();
  });
});

describe('random bytes on the socket', () => {
  it('never crash the server: each gets a closed connection or a non-5xx envelope', async () => {
    const prefix = fc.constantFrom(
      '',
      'GET / HTTP/1.1\r\n',
      'POST /v1/contacts HTTP/1.1\r\nHost: x\r\n',
      `GET /v1/me HTTP/1.1\r\nHost: x\r\nX-API-Key: ${tenant.secret.key}\r\n`,
      'POST /v1/contacts HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n',
    );
    await fc.assert(
      fc.asyncProperty(prefix, fc.uint8Array({ maxLength: 300 }), async (start, bytes) => {
        const request = Buffer.concat([Buffer.from(start), Buffer.from(bytes), Buffer.from('\r\n\r\n')]);
        const answer = await exchange([request], 3 * REQUEST_TIMEOUT_MS, true);
        if (answer.status === null) return;
        expect(answer.status, answer.text.slice(0, 300)).toBeLessThan(500);
        if (answer.status >= 400 && answer.body.length > 0) {
          expect(
            envelopeProblem(answer.status, JSON.parse(answer.body), answer.headers['x-request-id']),
          ).toBeNull();
        }
      }),
      { seed: FUZZ_SEED, numRuns: Math.min(FUZZ_RUNS * 3, 300) },
    );
    const me = await exchange([get('/v1/me')]);
    expect(me.status, me.text).toBe(200);
  }, 120_000);
});
