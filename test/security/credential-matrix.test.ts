/**
 * The route × credential matrix (issue 36 item 6, decision 0241): generated from the route table, so
 * no list is kept by hand. Every route that takes a credential is called with each credential kind it
 * accepts (API key, operator token, console session, visitor link, feed and calendar URL, unsubscribe
 * link), in each
 * case: valid, forged, stale, an inactive organization, a read-only organization, a deactivated
 * agent. A route with no credential rules, or a credential kind this suite cannot issue, fails it.
 * Last, the service's log is searched for every credential the run made: none may be there.
 */
import Fastify, { type FastifyInstance, type LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CredentialKind } from '../../src/platform/auth/caller.ts';
import { SCOPES } from '../../src/platform/auth/scopes.ts';
import { registerRouteConventions, type RouteEntry } from '../../src/platform/http/conventions.ts';
import { sharedSchemas } from '../../src/platform/http/schemas.ts';
import { unsubscribeToken } from '../../src/features/email/index.ts';
import { openSecretBox } from '../../src/platform/crypto/secrets-key.ts';
import { createAgent, createApiKey, createContact, createOrganization } from '../helpers/factories.ts';
import { admin, basicAuth, expectStatus } from '../helpers/http.ts';
import { captureLogs } from '../helpers/log-capture.ts';
import { ADMIN_TOKEN, buildTestApp, testDatabase } from '../helpers/test-app.ts';

type Case = 'valid' | 'forged' | 'stale' | 'inactive' | 'readOnly' | 'agentInactive';
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';

const MISSING_ID = 'id_0000000000000000000000';
/** The process's secrets box: the test apps' too (DATA_DIR=memory://, no SECRETS_KEY). */
const secrets = openSecretBox();
const HOST = 'localhost:80';
const ORIGIN = `http://${HOST}`;

/** A credential presented on a request: headers, the URL's `:token` and `:orgId`, a form body. */
interface Presented {
  headers: Record<string, string>;
  token?: string;
  orgId?: string;
  /** A token request's form (`auth.clientCredentials`); others send `{}` as JSON. */
  form?: string;
}

/** What one organization holds of every kind, in each of its states. */
interface Holdings {
  orgId: string;
  secret: string;
  publishable: string;
  readOnlyKey: string;
  agentKey: string;
  staleKey: string;
  console: { cookie: string; csrf: string };
  staleConsole: { cookie: string; csrf: string };
  feed: string;
  staleFeed: string;
  calendar: string;
  staleCalendar: string;
  visit: string;
  /** The unsubscribe link of a contact; stale: of a contact deleted since. */
  unsubscribe: string;
  staleUnsubscribe: string;
  agentId: string;
}

/** Every credential value the run made: none may appear in the service's log. */
const issued = new Set<string>();
const keep = <T extends string>(value: T): T => {
  issued.add(value);
  return value;
};

/** Which case a kind has, and the credential it presents in it (null: the case does not apply). */
type Issuer = (route: RouteEntry, held: Holdings, which: Case) => Presented | null;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
/** The ids of the keys made: an OAuth client names its key by id (client_id). */
const keyIds = new Map<string, string>();
/** A key where the route takes it: X-API-Key, a bearer token (MCP), or a token request's client credentials. */
const apiKey = (route: RouteEntry, key: string): Presented => {
  if (route.auth?.clientCredentials) {
    // A forged key is no key: whatever id it names, it is unknown first.
    const id = keyIds.get(key) ?? 'key_unknown';
    return {
      headers: { authorization: basicAuth(id, key), 'content-type': 'application/x-www-form-urlencoded' },
      form: 'grant_type=client_credentials',
    };
  }
  return { headers: route.auth?.bearer ? bearer(key) : { 'x-api-key': key } };
};
const consoleHeaders = (route: RouteEntry, session: { cookie: string; csrf: string }) => ({
  cookie: session.cookie,
  ...(route.method === 'GET' ? {} : { origin: ORIGIN, 'x-csrf-token': session.csrf }),
});
/** A forged value of the same shape: its last character changed (a checksum or signature no longer fits). */
const forge = (value: string) => `${value.slice(0, -1)}${value.endsWith('A') ? 'B' : 'A'}`;

function keyFor(route: RouteEntry, held: Holdings): string {
  const types = route.auth?.keyTypes ?? [];
  if (types.includes('secret')) return held.secret;
  if (types.includes('publishable')) return held.publishable;
  return held.readOnlyKey;
}

const ISSUERS: Record<CredentialKind, Issuer> = {
  api_key: (route, held, which) => {
    if (which === 'forged') return apiKey(route, forge(keyFor(route, held)));
    if (which === 'stale') return apiKey(route, held.staleKey);
    // A key bound to an agent: only where a secret key is taken (the agent key is one).
    if (which === 'agentInactive')
      return route.auth?.keyTypes.includes('secret') ? apiKey(route, held.agentKey) : null;
    return apiKey(route, keyFor(route, held));
  },
  operator: (_route, held, which) => {
    if (which === 'forged') return { headers: bearer(forge(ADMIN_TOKEN)), orgId: held.orgId };
    // The operator's token has no state of its own, nor an agent.
    if (which === 'stale' || which === 'agentInactive') return null;
    return { headers: bearer(ADMIN_TOKEN), orgId: held.orgId };
  },
  console: (route, held, which) => {
    if (which === 'agentInactive') return null;
    if (which === 'forged')
      return { headers: consoleHeaders(route, { ...held.console, cookie: forge(held.console.cookie) }) };
    if (which === 'stale') return { headers: consoleHeaders(route, held.staleConsole) };
    return { headers: consoleHeaders(route, held.console) };
  },
  feed: (_route, held, which) => {
    if (which === 'agentInactive') return null;
    if (which === 'forged') return { headers: {}, token: forge(held.feed) };
    if (which === 'stale') return { headers: {}, token: held.staleFeed };
    return { headers: {}, token: held.feed };
  },
  calendar: (_route, held, which) => {
    if (which === 'forged') return { headers: {}, token: forge(held.calendar) };
    if (which === 'stale') return { headers: {}, token: held.staleCalendar };
    return { headers: {}, token: held.calendar };
  },
  visitor_link: (_route, held, which) => {
    // A link has no state of its own: valid until its visit starts (decision 0237; manage.test.ts).
    if (which === 'stale' || which === 'agentInactive') return null;
    if (which === 'forged') return { headers: {}, token: forge(held.visit) };
    return { headers: {}, token: held.visit };
  },
  unsubscribe_link: (_route, held, which) => {
    if (which === 'agentInactive') return null;
    if (which === 'forged') return { headers: {}, token: forge(held.unsubscribe) };
    if (which === 'stale') return { headers: {}, token: held.staleUnsubscribe };
    return { headers: {}, token: held.unsubscribe };
  },
};

/** The answer a case must get. `passes`: the door let it through (whatever the route then answered). */
type Expected = { status: number } | 'passes';

function expected(route: RouteEntry, kind: CredentialKind, which: Case): Expected {
  const urlToken =
    kind === 'feed' || kind === 'calendar' || kind === 'visitor_link' || kind === 'unsubscribe_link';
  // OAuth 2.0 answers a refused client 400 unauthorized_client (RFC 6749 §5.2), the rest of the API 403.
  const refused = route.auth?.clientCredentials ? 400 : 403;
  switch (which) {
    case 'valid':
      return 'passes';
    case 'forged':
    case 'stale':
      // A URL credential that is not (or no longer) ours is a 404, the same for every wrong token.
      return { status: urlToken ? 404 : 401 };
    case 'inactive':
      return kind === 'operator' ? 'passes' : { status: refused };
    case 'readOnly':
      return route.write && kind !== 'operator' ? { status: 402 } : 'passes';
    case 'agentInactive':
      return { status: refused };
  }
}

function urlOf(route: RouteEntry, presented: Presented): string {
  return route.url.replace(/:([A-Za-z0-9_]+)/g, (_m, name: string) => {
    if (name === 'token') return presented.token ?? MISSING_ID;
    if (name === 'orgId') return presented.orgId ?? MISSING_ID;
    return MISSING_ID;
  });
}

function send(
  app: FastifyInstance,
  route: RouteEntry,
  presented: Presented,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method: route.method as Method,
    url: urlOf(route, presented),
    headers: { host: HOST, ...presented.headers },
    ...(route.method === 'GET' || route.method === 'DELETE' ? {} : { payload: presented.form ?? {} }),
  });
}

function check(response: LightMyRequestResponse, want: Expected, where: string) {
  const said = `${where}: ${response.statusCode} ${response.body.slice(0, 300)}`;
  expect(response.statusCode, said).toBeLessThan(500);
  if (want === 'passes') expect([401, 402, 403], said).not.toContain(response.statusCode);
  else expect(response.statusCode, said).toBe(want.status);
}

/** The routes that take a credential, from the table: hidden ones (the console's) included. */
const credentialed = (app: FastifyInstance) =>
  app.routeTable.filter((route) => route.credentials.length > 0 && !route.url.includes('*'));

/**
 * Reads first, then changes, and last the few whose success ends a credential the others use: the
 * console's sign-out, the operator's end of every console session, a new or no feed token.
 */
const endsCredential = (route: RouteEntry) =>
  /\/sign-out$|\/console-sessions$|^\/v1\/feeds\/token$/.test(route.url);
const inSafeOrder = (routes: RouteEntry[]) =>
  [...routes].sort(
    (a, b) =>
      Number(endsCredential(a)) - Number(endsCredential(b)) ||
      Number(a.method !== 'GET') - Number(b.method !== 'GET'),
  );

/** Routes declaring no credential rules at all: each is a route someone forgot to guard. */
const undeclared = (table: readonly RouteEntry[]) =>
  table.filter((route) => route.kind === undefined && !route.url.includes('*'));

describe('the route × credential matrix', () => {
  let app: FastifyInstance;
  const logs = captureLogs();
  type State = 'active' | 'inactive' | 'readOnly' | 'agentOff';

  /** Fresh holdings of an organization in `state` (each case its own: some routes end a credential). */
  async function prepared(state: State): Promise<Holdings> {
    const held = await holdings();
    const change =
      state === 'inactive'
        ? await admin(app, 'PATCH', `/admin/v1/organizations/${held.orgId}`, { isActive: false })
        : state === 'readOnly'
          ? await admin(app, 'PATCH', `/admin/v1/organizations/${held.orgId}`, { readOnly: true })
          : state === 'agentOff'
            ? await admin(app, 'PATCH', `/admin/v1/organizations/${held.orgId}/agents/${held.agentId}`, {
                active: false,
              })
            : null;
    if (change) expectStatus(change, 200);
    return held;
  }

  async function consoleSession(orgId: string) {
    const link = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${orgId}/console-links`),
      201,
    ).data;
    const { pathname, search } = new URL(link.url);
    keep(new URL(link.url).searchParams.get('token') as string);
    const opened = await app.inject({ method: 'GET', url: `${pathname}${search}`, headers: { host: HOST } });
    expect(opened.statusCode, opened.body).toBe(303);
    const cookie = keep(String(opened.headers['set-cookie']).split(';')[0] as string);
    keep(cookie.split('=')[1] as string);
    const session = await app.inject({
      method: 'GET',
      url: '/console/api/session',
      headers: { host: HOST, cookie },
    });
    return { cookie, csrf: keep(expectStatus(session, 200).csrfToken as string) };
  }

  /** An organization holding one credential of every kind, plus stale ones. */
  async function holdings(): Promise<Holdings> {
    const org = await createOrganization(app, { plan: 'BUSINESS' });
    const limits = { rateLimitPerMinute: 100_000, writeLimitPerMinute: 100_000 };
    const key = async (body: Record<string, unknown>) => {
      const created = await createApiKey(app, org.id, body);
      keyIds.set(created.key, created.id);
      return keep(created.key);
    };
    const secret = await key({ type: 'secret', scopes: [...SCOPES], accessLevel: 3, ...limits });
    const agent = await createAgent(app, org.id, {
      bookingSlug: `matrix-${org.id.slice(-8).toLowerCase()}`,
      booking: { timezone: 'UTC', weekdays: [1, 2, 3, 4, 5, 6, 7] },
    });
    const call = (method: Method, url: string, body?: unknown) =>
      app.inject({ method, url, headers: { 'x-api-key': secret }, ...(body ? { payload: body } : {}) });
    const feedToken = async () =>
      keep(expectStatus(await call('POST', '/v1/feeds/token', {}), 201).data.token);
    const calendarToken = async () =>
      keep(expectStatus(await call('POST', `/v1/calendar/feeds/${agent.id}`, {}), 201).data.token);
    const staleFeed = await feedToken();
    const staleCalendar = await calendarToken();
    const staleKey = await key({ type: 'secret', scopes: [...SCOPES], accessLevel: 3 });
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/api-keys/${staleKeyId(staleKey)}`, { status: 'deactivated' }),
      200,
    );
    const staleConsole = await consoleSession(org.id);
    const signedOut = await app.inject({
      method: 'POST',
      url: '/console/api/sign-out',
      headers: { host: HOST, ...consoleHeaders({ method: 'POST' } as RouteEntry, staleConsole) },
    });
    expect(signedOut.statusCode, signedOut.body).toBe(204);
    const publishable = await key({ type: 'publishable', ...limits });
    const visit = await bookVisit(publishable, `matrix-${org.id.slice(-8).toLowerCase()}`);
    const contact = async () =>
      (await createContact(app, org.id, { via: 'admin', body: { firstName: 'Ana', email: null } })).id;
    const staleContact = await contact();
    expectStatus(
      await admin(app, 'DELETE', `/admin/v1/organizations/${org.id}/contacts/${staleContact}`),
      200,
    );
    return {
      orgId: org.id,
      secret,
      publishable,
      readOnlyKey: await key({ type: 'read_only_secret', rateLimitPerMinute: 100_000 }),
      agentKey: await key({
        type: 'secret',
        scopes: [...SCOPES],
        accessLevel: 3,
        agentId: agent.id,
        ...limits,
      }),
      staleKey,
      console: await consoleSession(org.id),
      staleConsole,
      feed: await feedToken(),
      staleFeed,
      calendar: await calendarToken(),
      staleCalendar,
      visit,
      unsubscribe: keep(unsubscribeToken(secrets, org.id, await contact())),
      staleUnsubscribe: keep(unsubscribeToken(secrets, org.id, staleContact)),
      agentId: agent.id,
    };
  }

  const staleKeyId = (key: string) => keyIds.get(key) as string;

  async function bookVisit(publishable: string, slug: string): Promise<string> {
    // A week ahead: inside the horizon, past the notice, whatever the day of the month.
    const ahead = new Date(Date.now() + 7 * 86_400_000);
    const availability = await app.inject({
      method: 'GET',
      url: `/v1/booking/${slug}/availability`,
      headers: { 'x-api-key': publishable },
      query: { year: String(ahead.getUTCFullYear()), month: String(ahead.getUTCMonth()) },
    });
    const days = expectStatus(availability, 200).data.data.availableDates as {
      date: string;
      slots: string[];
    }[];
    const day = days.at(-1) ?? expect.unreachable(`no free slot: ${availability.body}`);
    const booked = await app.inject({
      method: 'POST',
      url: `/v1/booking/${slug}`,
      headers: { 'x-api-key': publishable },
      payload: {
        firstName: 'Ana',
        lastName: 'Ruiz',
        phone: '+34611555001',
        date: day.date,
        startTime: day.slots[0],
      },
    });
    const manageUrl = expectStatus(booked, 201).data.data.manageUrl as string;
    return keep(new URL(manageUrl).pathname.replace(/^\/visits\//, ''));
  }

  beforeAll(async () => {
    app = await buildTestApp(
      { LOG_LEVEL: 'info', AUTH_FAILURE_LIMIT: '1000000' },
      { db: await testDatabase(), logStream: logs.stream },
    );
  });
  afterAll(async () => {
    await app?.close();
  });

  it('finds credential rules on every route, and an issuer for every credential kind they name', () => {
    expect(undeclared(app.routeTable).map((r) => `${r.method} ${r.url}`)).toEqual([]);
    const kinds = new Set(app.routeTable.flatMap((route) => route.credentials));
    for (const kind of kinds) expect(ISSUERS[kind], `no issuer for ${kind}`).toBeDefined();
    // Every kind is offered somewhere: a kind no route takes any more would leave its issuer untested.
    expect([...kinds].sort()).toEqual(Object.keys(ISSUERS).sort());
  });

  it('flags a route added without credential rules', async () => {
    const probe = Fastify();
    for (const schema of sharedSchemas) probe.addSchema(schema);
    registerRouteConventions(probe);
    probe.get('/v1/forgotten', { schema: { operationId: 'forgotten.get' } }, async () => ({}));
    await probe.ready();
    expect(undeclared(probe.routeTable).map((r) => r.url)).toEqual(['/v1/forgotten']);
    await probe.close();
  });

  const cases: [Case, State][] = [
    ['valid', 'active'],
    ['forged', 'active'],
    ['stale', 'active'],
    ['inactive', 'inactive'],
    ['readOnly', 'readOnly'],
    ['agentInactive', 'agentOff'],
  ];
  for (const [which, state] of cases) {
    it(`answers every route × credential kind as it should: ${which}`, async () => {
      const held = await prepared(state);
      let calls = 0;
      for (const route of inSafeOrder(credentialed(app))) {
        for (const kind of route.credentials) {
          // The agent case: an organization whose agent was deactivated; its calendar URL and a key bound
          // to it are the credentials that belong to that agent (the issuers give no other).
          const presented = ISSUERS[kind](route, held, which);
          if (presented === null) continue;
          const response = await send(app, route, presented);
          check(response, expected(route, kind, which), `${kind} ${which} ${route.method} ${route.url}`);
          calls += 1;
        }
      }
      expect(calls).toBeGreaterThan(20);
    }, 120_000);
  }

  it('writes none of the credentials it made to the service log', () => {
    expect(issued.size).toBeGreaterThan(20);
    const text = logs.text();
    const found = [...issued].filter(
      (value) => text.includes(value) || text.includes(encodeURIComponent(value)),
    );
    expect(found).toEqual([]);
    // The log was on: the requests are in it, their credentials redacted.
    expect(text).toContain('[redacted]');
  });
});
