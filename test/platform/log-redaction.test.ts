import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type Database } from '../../src/db/database.ts';
import { redactUrl } from '../../src/platform/logging/redact-url.ts';
import { requestLogLine } from '../../src/platform/request-logs/request-logs.plugin.ts';
import { createTenant, type Tenant } from '../helpers/factories.ts';
import { api, expectError } from '../helpers/http.ts';
import { buildTestApp, testDatabase } from '../helpers/test-app.ts';

// Logs carry no credential (issue 36 item 4, decision 0240).

describe('redactUrl', () => {
  describe('credentials in the path', () => {
    it('redacts a :token segment and keeps its static suffix', () => {
      expect(redactUrl('/calendars/abcDEF_123-xyz.ics', '/calendars/:token.ics')).toBe(
        '/calendars/[redacted].ics',
      );
    });

    it('redacts the token of feed and visitor links, keeping the rest of the path', () => {
      expect(redactUrl('/feeds/s3cr3t/kyero.xml', '/feeds/:token/kyero.xml')).toBe(
        '/feeds/[redacted]/kyero.xml',
      );
      expect(redactUrl('/feeds/s3cr3t/listings.json', '/feeds/:token/listings.json')).toBe(
        '/feeds/[redacted]/listings.json',
      );
      expect(redactUrl('/visits/org.apt.key.hmac', '/visits/:token')).toBe('/visits/[redacted]');
      for (const tail of ['', '/availability', '/cancel', '/move']) {
        expect(redactUrl(`/v1/booking/manage/a.b.c.d${tail}`, `/v1/booking/manage/:token${tail}`)).toBe(
          `/v1/booking/manage/[redacted]${tail}`,
        );
      }
    });

    it('redacts a percent-encoded token and one that does not end as its pattern does', () => {
      expect(redactUrl('/visits/a%2Fb%2Ec', '/visits/:token')).toBe('/visits/[redacted]');
      expect(redactUrl('/calendars/abc%2Eics', '/calendars/:token.ics')).toBe('/calendars/[redacted]');
    });

    it('leaves other parameters, and parameters that only start with "token", as they are', () => {
      expect(redactUrl('/v1/contacts/ct_123', '/v1/contacts/:id')).toBe('/v1/contacts/ct_123');
      expect(redactUrl('/v1/things/tok_1', '/v1/things/:tokenId')).toBe('/v1/things/tok_1');
      expect(redactUrl('/v1/feeds/token', '/v1/feeds/token')).toBe('/v1/feeds/token');
    });

    it('redacts the whole segment when the token shares it with another parameter', () => {
      expect(redactUrl('/x/abc-def', '/x/:token-:part')).toBe('/x/[redacted]');
      expect(redactUrl('/x/abc-def', '/x/:part-:token')).toBe('/x/[redacted]');
    });

    it('shows the pattern, its tokens redacted, when the path does not line up with it', () => {
      expect(redactUrl('/files/abc/d/e', '/files/:token/*')).toBe('/files/[redacted]/*');
    });
  });

  describe('query strings', () => {
    it('keeps every name, and the values of allowlisted names only', () => {
      expect(
        redactUrl('/v1/contacts?q=alice&page=2&pageSize=50&sortBy=createdAt&sortOrder=desc', '/v1/contacts'),
      ).toBe('/v1/contacts?q=[redacted]&page=2&pageSize=50&sortBy=createdAt&sortOrder=desc');
    });

    it('redacts a token, personal data and cursors', () => {
      expect(redactUrl('/console/start?token=abc123', '/console/start')).toBe(
        '/console/start?token=[redacted]',
      );
      expect(
        redactUrl(
          '/v1/contacts?email=alice%40example.com&phone=%2B34600111222&cursor=eyJuYW1lIjoiQWxpY2UifQ',
          undefined,
        ),
      ).toBe('/v1/contacts?email=[redacted]&phone=[redacted]&cursor=[redacted]');
      expect(
        redactUrl('/v1/reso/Property?$top=10&$skiptoken=abc&$filter=City%20eq%20%27X%27', undefined),
      ).toBe('/v1/reso/Property?$top=10&$skiptoken=[redacted]&$filter=[redacted]');
    });

    it('redacts the query of a path no route matched (a 404)', () => {
      expect(redactUrl('/nowhere?token=abc&q=bob', undefined)).toBe('/nowhere?token=[redacted]&q=[redacted]');
    });

    it('treats each repeated parameter on its own', () => {
      expect(redactUrl('/v1/x?status=NEW&status=WON&q=a&q=b', undefined)).toBe(
        '/v1/x?status=NEW&status=WON&q=[redacted]&q=[redacted]',
      );
    });

    it('compares decoded names, so an encoded "token" is still a token', () => {
      expect(redactUrl('/console/start?to%6Ben=abc', '/console/start')).toBe(
        '/console/start?token=[redacted]',
      );
      expect(redactUrl('/v1/x?page%53ize=20', undefined)).toBe('/v1/x?pageSize=20');
    });

    it('redacts an allowlisted value that does not look like one', () => {
      expect(redactUrl('/v1/x?status=alice%40example.com&page=%E0%A4%A', undefined)).toBe(
        '/v1/x?status=[redacted]&page=[redacted]',
      );
      expect(redactUrl('/v1/x?$orderby=ListPrice+desc', undefined)).toBe('/v1/x?$orderby=ListPrice+desc');
    });

    it('redacts data sent as a name, and keeps names without a value', () => {
      expect(redactUrl('/v1/x?alice@example.com&flag&=v', undefined)).toBe(
        '/v1/x?[redacted]&flag&=[redacted]',
      );
    });

    it('redacts both the path token and the query', () => {
      expect(
        redactUrl(
          '/v1/booking/manage/a.b.c.d/availability?month=2027-03&token=t',
          '/v1/booking/manage/:token/availability',
        ),
      ).toBe('/v1/booking/manage/[redacted]/availability?month=[redacted]&token=[redacted]');
    });
  });

  it('returns the very string it was given when there is nothing to redact', () => {
    const url = '/v1/me';
    expect(redactUrl(url, '/v1/me')).toBe(url);
    expect(redactUrl(url, undefined)).toBe(url);
  });
});

describe('request_logs path', () => {
  it('keeps a route token out of the stored path, and the query too', () => {
    const request = {
      caller: { organization: { id: 'org_1' }, keyId: 'key_1', keyPrefix: 'sk_test' },
      url: '/v1/booking/manage/org.apt.key.hmac/availability?month=2027-03',
      method: 'GET',
      id: 'req_1',
      ip: '127.0.0.1',
      body: undefined,
      errorSummary: null,
      params: { token: 'org.apt.key.hmac' },
      routeOptions: { url: '/v1/booking/manage/:token/availability', schema: { operationId: 'x.y' } },
    } as unknown as FastifyRequest;
    const reply = { elapsedTime: 3, statusCode: 200 } as unknown as FastifyReply;
    expect(requestLogLine(request, reply)?.path).toBe('/v1/booking/manage/[redacted]/availability');
  });
});

describe('the service log and request_logs over HTTP', () => {
  let app: FastifyInstance;
  let db: Database;
  let tenant: Tenant;
  let logs = '';
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logs += String(chunk);
      done();
    },
  });

  beforeAll(async () => {
    db = await testDatabase();
    app = await buildTestApp({ LOG_LEVEL: 'info' }, { db, logStream });
    tenant = await createTenant(app);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('writes no token, CSRF token, search or email it was sent', async () => {
    const secrets = {
      calendar: 'calTokenAAAAbbbbCCCCdddd0001',
      feed: 'feedTokenAAAAbbbbCCCCdddd0002',
      manage: 'org0003.apt0003.key0003.hmacAAAAbbbb0003',
      console: 'consoleTokenAAAAbbbbCCCC0004',
      csrf: 'csrfTokenAAAAbbbbCCCCdddd0005',
      email: 'alice.logtest@example.com',
      // No route of the method: a 405, and a CORS preflight (the `/*` OPTIONS route).
      wrongMethod: 'calTokenAAAAbbbbCCCCdddd0006',
      preflight: 'org0007.apt0007.key0007.hmacAAAAbbbb0007',
    };
    const start = logs.length;
    await api(app, 'GET', `/calendars/${secrets.calendar}.ics`);
    await api(app, 'GET', `/feeds/${secrets.feed}/kyero.xml`);
    await api(app, 'GET', `/v1/booking/manage/${secrets.manage}`);
    await api(app, 'GET', `/console/start?token=${secrets.console}`);
    await api(app, 'GET', `/v1/contacts?q=${encodeURIComponent(secrets.email)}&email=${secrets.email}`, {
      key: tenant.secret.key,
    });
    await api(app, 'POST', '/console/api/sign-out', { headers: { 'x-csrf-token': secrets.csrf } });
    const refused = await api(app, 'POST', `/calendars/${secrets.wrongMethod}.ics`);
    await api(app, 'OPTIONS', `/v1/booking/manage/${secrets.preflight}/cancel`, {
      headers: { origin: 'https://agency.example', 'access-control-request-method': 'POST' },
    });
    await app.requestLogs.flush();
    const written = logs.slice(start);
    const stored = await db.systemTx((tx) =>
      queryRows<{ path: string }>(
        tx,
        sql`SELECT path FROM request_logs WHERE organization_id = ${tenant.org.id}`,
      ),
    );
    const storedText = JSON.stringify(stored);

    expect(written, 'the requests were logged at all').toContain('"url":"/calendars/[redacted].ics"');
    expect(written).toContain('"url":"/feeds/[redacted]/kyero.xml"');
    expect(written).toContain('"url":"/v1/booking/manage/[redacted]"');
    expect(written).toContain('"url":"/console/start?token=[redacted]"');
    expect(written).toContain('"url":"/v1/contacts?q=[redacted]&email=[redacted]"');
    expect(written).toContain('"x-csrf-token":"[redacted]"');
    expect(written).toContain('"msg":"POST /calendars/[redacted].ics is not supported; use GET, HEAD"');
    expect(written).toContain('"url":"/v1/booking/manage/[redacted]/cancel"');
    // The response is the client's own: it still names the path as sent.
    expectError(refused, 405, 'METHOD_NOT_ALLOWED');
    expect(refused.json().error.message).toContain(secrets.wrongMethod);
    expect(storedText).toContain('/v1/contacts');
    for (const [name, value] of Object.entries(secrets)) {
      expect(written, `${name} in the log:\n${written}`).not.toContain(value);
      expect(written, `${name} (encoded) in the log`).not.toContain(encodeURIComponent(value));
      expect(storedText, `${name} in request_logs`).not.toContain(value);
    }
  });
});
