import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { ADMIN_TOKEN } from '../../helpers/test-app.ts';
import type { Operation, Parameter, Schema } from './operations.ts';
import {
  hostileText,
  hostileValue,
  mutate,
  mutation,
  NASTY_NUMBER_TEXT,
  NASTY_STRINGS,
  toJson,
  valueFor,
  type NamedValues,
} from './values.ts';
import {
  BOUNCE_SECRET,
  HOOK_SECRET,
  namedValues,
  poolOfParameter,
  type FuzzOrganization,
  type World,
} from './world.ts';

/** One generated HTTP request, as app.inject takes it. */
export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string | Buffer;
}

/** Failure reports show requests shortened: a 1 MB body must not flood the CI log. */
export function describeRequest(request: FuzzRequest): string {
  const cut = (text: string, n: number) =>
    text.length > n ? `${text.slice(0, n)}… (${text.length} chars)` : text;
  const headers = Object.entries(request.headers).map(([k, v]) => `${k}: ${cut(JSON.stringify(v), 120)}`);
  const payload =
    request.payload === undefined
      ? '(no body)'
      : Buffer.isBuffer(request.payload)
        ? `bytes ${cut(request.payload.toString('hex'), 200)}`
        : cut(JSON.stringify(request.payload), 600);
  return [`${request.method} ${cut(request.url, 300)}`, ...headers, payload].join('\n  ');
}

function withDescription(request: FuzzRequest): FuzzRequest {
  return Object.defineProperty(request, fc.toStringMethod, {
    value: () => describeRequest(request),
    enumerable: false,
  });
}

/** `arbitrary` one time in `oneIn`, else null. */
function sometimes<T>(arbitrary: fc.Arbitrary<T>, oneIn: number): fc.Arbitrary<T | null> {
  if (oneIn <= 1) return arbitrary;
  return fc.oneof({ weight: oneIn - 1, arbitrary: fc.constant(null) }, { weight: 1, arbitrary });
}

// ---------------------------------------------------------------------------------------------
// Encoding

/**
 * Percent-encodes every byte but the unreserved characters. A lone surrogate becomes its 3-byte
 * (CESU/WTF-8) form, which is not valid UTF-8: exactly what a hostile client can put on the wire.
 */
export function percentEncode(text: string): string {
  let out = '';
  for (const char of text) {
    if (/^[A-Za-z0-9\-._~]$/.test(char)) {
      out += char;
      continue;
    }
    const cp = char.codePointAt(0) as number;
    const bytes =
      cp < 0x80
        ? [cp]
        : cp < 0x800
          ? [0xc0 | (cp >> 6), 0x80 | (cp & 63)]
          : cp < 0x10000
            ? [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)]
            : [0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 63), 0x80 | ((cp >> 6) & 63), 0x80 | (cp & 63)];
    out += bytes.map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  }
  return out;
}

/** What an HTTP/1.1 parser lets through in a header value: tab, printable ASCII and obs-text bytes. */
function headerSafe(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    out += code === 9 || (code >= 0x20 && code <= 0x7e) || (code >= 0x80 && code <= 0xff) ? text[i] : '?';
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Credentials

const garbageKey = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'null',
    'service_sk_live_',
    `service_sk_live_${'A'.repeat(38)}`,
    `service_pk_test_${'0'.repeat(38)}`,
    'x'.repeat(8_000),
    'Bearer x',
    'clé-ÿ',
  ),
  hostileText(60).map(headerSafe),
);

/** A key with one character changed (first or last): same shape, wrong checksum or unknown hash. */
function tampered(key: string) {
  return fc.tuple(fc.boolean(), fc.constantFrom('0', 'Z', 'a')).map(([first, c]) => {
    const i = first ? 'service_sk_live_'.length : key.length - 1;
    return key.slice(0, i) + (key[i] === c ? '1' : c) + key.slice(i + 1);
  });
}

function credentials(operation: Operation, org: FuzzOrganization): fc.Arbitrary<Record<string, string>> {
  if (operation.kind === 'admin') {
    return fc.oneof(
      { weight: 12, arbitrary: fc.constant({ authorization: `Bearer ${ADMIN_TOKEN}` }) },
      {
        weight: 2,
        arbitrary: fc.oneof(
          fc.constant({}),
          fc
            .constantFrom(
              'Bearer',
              'Bearer ',
              `Basic ${ADMIN_TOKEN}`,
              `bearer  ${ADMIN_TOKEN}  `,
              ADMIN_TOKEN,
            )
            .map((authorization) => ({ authorization })),
          tampered(ADMIN_TOKEN).map((t) => ({ authorization: `Bearer ${t}` })),
          garbageKey.map((t) => ({ authorization: `Bearer ${t}` })),
        ),
      },
    );
  }
  const auth = operation.auth;
  if (operation.kind !== 'keyed' || !auth) return fc.constant({});
  const accepted = auth.keyTypes.filter((type) => !(auth.write && type === 'read_only_secret'));
  // A token endpoint's client names its key by id (client_id): the world's keys, in keyIds' order.
  const { keys, keyIds } = org;
  const ids = new Map(
    [keys.secret, keys.publishable, keys.read_only_secret, keys.testSecret].map((k, i) => [k, keyIds[i]]),
  );
  const place = (key: string): Record<string, string> =>
    auth.clientCredentials
      ? {
          authorization: `Basic ${Buffer.from(`${ids.get(key) ?? 'key_unknown'}:${key}`).toString('base64')}`,
        }
      : auth.bearer
        ? { authorization: `Bearer ${key}` }
        : { 'x-api-key': key };
  const valid = fc
    .constantFrom(...(accepted.length > 0 ? accepted : auth.keyTypes))
    .map((type) => org.keys[type]);
  return fc.oneof(
    { weight: 14, arbitrary: valid.map(place) },
    {
      weight: 3,
      arbitrary: fc.oneof(
        fc.constant({}),
        fc
          .constantFrom(org.keys.secret, org.keys.publishable, org.keys.read_only_secret, org.keys.testSecret)
          .map(place),
        tampered(org.keys.secret).map(place),
        garbageKey.map(place),
        // The key in the header this route does not read.
        valid.map((key): Record<string, string> =>
          auth.bearer ? { 'x-api-key': key } : { authorization: `Bearer ${key}` },
        ),
        // Two X-API-Key headers arrive joined with ", " (Node's rule for repeated headers).
        valid.map((key) => ({ 'x-api-key': `${key}, ${org.keys.publishable}` })),
      ),
    },
  );
}

// ---------------------------------------------------------------------------------------------
// Path, query, headers

const hostileSegment = fc.oneof(
  hostileText(30).map(percentEncode),
  fc.constantFrom(
    '%',
    '%ZZ',
    '%ED%A0%80',
    '%FF',
    '%C0%80',
    '%00',
    '%2F',
    '%2e%2e',
    '..',
    '.',
    '~',
    'a'.repeat(101),
    'a'.repeat(5_000),
    'ct_0000000000000000000000',
    'org_00000000000000000000000',
    '%20',
    '%E2%80%AE',
    'null',
  ),
);

function pathFor(operation: Operation, org: FuzzOrganization): fc.Arbitrary<string> {
  if (operation.pathParams.length === 0) return fc.constant(operation.path);
  const values = operation.pathParams.map((param) => {
    const pool = poolOfParameter(operation.path, param.name);
    const ids = pool ? org.pools[pool] : [];
    const real = fc.constantFrom(...(ids.length > 0 ? ids : ['none'])).map(percentEncode);
    return fc.oneof({ weight: 5, arbitrary: real }, { weight: 2, arbitrary: hostileSegment });
  });
  return fc
    .tuple(...values)
    .map((parts) =>
      operation.pathParams.reduce(
        (path, param, i) => path.replace(`{${param.name}}`, parts[i] as string),
        operation.path,
      ),
    );
}

function queryValue(param: Parameter, named: NamedValues): fc.Arbitrary<string> {
  const types = [param.schema.type, ...(param.schema.anyOf ?? []).map((s: Schema) => s.type)].flat();
  const numeric = types.includes('integer') || types.includes('number');
  const valid = valueFor(param.schema, named, param.name).map((v) =>
    v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v),
  );
  const hostile = numeric
    ? fc.constantFrom(...NASTY_NUMBER_TEXT)
    : fc.oneof(fc.constantFrom(...NASTY_STRINGS), hostileText(30));
  return fc.oneof({ weight: 4, arbitrary: valid }, { weight: 1, arbitrary: hostile }).map(percentEncode);
}

const oddQuery = fc.constantFrom(
  '%',
  '%ZZ=1',
  'a[b]=1',
  '__proto__=x',
  '__proto__[x]=1',
  'constructor[prototype][x]=1',
  '&&&',
  '=',
  '==',
  'page=1&page=2',
  'pageSize=1&pageSize=',
  'unknown=1',
  `q=${'a'.repeat(5_000)}`,
  'page',
  '%00=%00',
);

function queryFor(operation: Operation, named: NamedValues): fc.Arbitrary<string> {
  const present = operation.queryParams.map((param) =>
    sometimes(
      queryValue(param, named).map((v) => `${encodeURIComponent(param.name)}=${v}`),
      param.required ? 1 : 3,
    ),
  );
  return fc
    .tuple(
      fc.tuple(...present),
      sometimes(oddQuery, 8),
      sometimes(fc.constantFrom(...operation.queryParams.map((p) => p.name).concat('page')), 16),
    )
    .map(([pairs, odd, repeated]) => {
      const parts = pairs.filter((p): p is string => p !== null);
      if (odd) parts.push(odd);
      if (repeated) parts.push(`${repeated}=1`, `${repeated}=2`);
      return parts.length > 0 ? `?${parts.join('&')}` : '';
    });
}

const idempotencyKey = fc.oneof(
  { weight: 3, arbitrary: fc.stringMatching(/^[A-Za-z0-9._:-]{8,40}$/) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'short',
      'a'.repeat(129),
      'a'.repeat(8_000),
      'with space key',
      'clé-idempotence',
      'abcdefgh, abcdefgh',
      '',
      '../../../../',
    ),
  },
);

const oddHeaders = fc.record(
  {
    origin: fc.constantFrom('https://evil.example', 'null', ''),
    'sec-fetch-site': fc.constantFrom('cross-site', 'none'),
    'x-forwarded-for': fc.constantFrom('1.2.3.4', 'garbage, ::1', '999.999.999.999', ''),
    'accept-version': fc.constantFrom('1.x', '*', 'garbage', ''),
    'x-request-id': fc.constantFrom('spoofed', 'a'.repeat(500)),
    'content-encoding': fc.constantFrom('gzip', 'br', 'identity', 'garbage'),
    'accept-encoding': fc.constantFrom('gzip, br', '*;q=0', 'identity'),
    accept: fc.constantFrom(
      'text/html',
      'application/xml',
      '*/*',
      'application/json;q=0',
      '',
      'application/json',
    ),
    'x-http-method-override': fc.constantFrom('DELETE', 'PUT'),
  },
  { requiredKeys: [] },
);

// ---------------------------------------------------------------------------------------------
// Bodies

/** Raw payloads: malformed JSON, invalid UTF-8, other encodings, the body limit. */
const garbagePayload: fc.Arbitrary<string | Buffer> = fc.oneof(
  fc.constantFrom<string | Buffer>(
    '',
    '   ',
    '{',
    '}',
    '{"a":}',
    '{"a":1,}',
    '[1,]',
    "{'a':1}",
    '{"a":1}{"b":2}',
    '{"a":NaN}',
    '{"a":undefined}',
    '/* c */{}',
    '\uFEFF{}',
    'null',
    'true',
    '0',
    '"text"',
    '[]',
    '{"a":"\\u0000"}',
    '{"a":"\\ud800"}',
    '{"\\ud800":1}',
    '{"a":"\\x41"}',
    '{"a":1e999999}',
    '{"a":-}',
    '{"__proto__":{"admin":true}}',
    '{"constructor":{"prototype":{"admin":true}}}',
    '['.repeat(10_000),
    '{"a":'.repeat(10_000),
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc0, 0x80, 0x22, 0x7d]),
    Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
    Buffer.from('{"firstName":"Ana"}', 'utf16le'),
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('{"a":1}', 'utf16le')]),
  ),
  fc.constantFrom(1024 * 1024 + 1, 2 * 1024 * 1024).map((n) => `{"a":"${'x'.repeat(n)}"}`),
);

const jsonContentType = fc.oneof(
  { weight: 16, arbitrary: fc.constant('application/json') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'application/json; charset=UTF-16',
      'application/json; charset=latin1',
      'APPLICATION/JSON',
      'application/json;',
      'application/json ; foo=bar',
      'application/vnd.api+json',
      'application/merge-patch+json',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/json, text/plain',
      '*/*',
      '',
    ),
  },
);

/** Arguments of an MCP tools/call, from the schema tools/list advertises. */
function mcpMessage(world: World, named: NamedValues): fc.Arbitrary<unknown> {
  const call = fc.constantFrom(...world.mcpTools).chain((tool) =>
    valueFor(tool.inputSchema as Schema, named).map((args) => ({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: { name: tool.name, arguments: args },
    })),
  );
  const other = fc.constantFrom(
    { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    { jsonrpc: '2.0', id: 'a', method: 'ping' },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    {
      jsonrpc: '2.0',
      id: 2,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'fuzz', version: '1' } },
    },
    { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } },
    { jsonrpc: '2.0', id: 4, method: 'resources/list' },
    { jsonrpc: '2.0', id: 5, result: {} },
  );
  return fc.oneof({ weight: 4, arbitrary: call }, { weight: 1, arbitrary: other });
}

/** A Cloud-API-shaped notification for the messaging hook: inbound texts and receipts. */
function hookPayload(org: FuzzOrganization): fc.Arbitrary<unknown> {
  const from = fc.oneof(
    fc.constantFrom(...org.pools.phones.map((p) => p.slice(1))),
    fc.integer({ min: 10_000_000, max: 99_999_999 }).map((n) => `346${n}`),
  );
  const message = fc.record({
    from,
    id: fc.stringMatching(/^wamid\.[A-Za-z0-9]{6,20}$/),
    timestamp: fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }).map(String),
    type: fc.constantFrom('text', 'button', 'interactive', 'image', 'reaction'),
    text: fc.record({
      body: fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('STOP', 'baja', 'Unsubscribe')),
    }),
  });
  const status = fc.record({
    id: fc.stringMatching(/^wamid\.[A-Za-z0-9]{6,20}$/),
    status: fc.constantFrom('sent', 'delivered', 'read', 'failed', 'deleted'),
  });
  return fc
    .record({
      contacts: fc.array(
        fc.record({ wa_id: from, profile: fc.record({ name: fc.string({ maxLength: 30 }) }) }),
        {
          maxLength: 2,
        },
      ),
      messages: fc.array(message, { maxLength: 3 }),
      statuses: fc.array(status, { maxLength: 2 }),
    })
    .map((value) => ({
      object: 'whatsapp_business_account',
      entry: [{ id: 'waba', changes: [{ field: 'messages', value }] }],
    }));
}

interface Body {
  payload?: string | Buffer;
  contentType?: string;
}

function bodyFor(
  operation: Operation,
  world: World,
  org: FuzzOrganization,
  named: NamedValues,
): fc.Arbitrary<Body> {
  const shaped =
    operation.operationId === 'mcp.call'
      ? mcpMessage(world, named)
      : operation.operationId === 'hooks.messaging.receive'
        ? hookPayload(org)
        : operation.body
          ? valueFor(operation.body, named)
          : null;
  const json = (value: fc.Arbitrary<unknown>) =>
    fc.tuple(value, jsonContentType).map(([v, contentType]): Body => ({ payload: toJson(v), contentType }));
  const garbage = fc.tuple(garbagePayload, jsonContentType).map(([payload, contentType]): Body => ({
    payload,
    contentType,
  }));
  if (operation.auth?.clientCredentials) return tokenForm(garbage);
  if (!shaped) {
    // Operations without a body still get one now and then.
    return fc.oneof(
      { weight: 8, arbitrary: fc.constant<Body>({}) },
      { weight: 1, arbitrary: json(hostileValue) },
      { weight: 1, arbitrary: garbage },
    );
  }
  const mutated = fc
    .tuple(shaped, fc.array(mutation, { maxLength: 2 }))
    .map(([value, mutations]) => mutate(value, mutations));
  return fc.oneof(
    { weight: 12, arbitrary: json(mutated) },
    { weight: 2, arbitrary: json(hostileValue) },
    { weight: 2, arbitrary: garbage },
    // A valid body cut short.
    {
      weight: 1,
      arbitrary: fc.tuple(shaped, fc.nat()).map(([v, cut]): Body => {
        const text = toJson(v);
        return { payload: text.slice(0, cut % Math.max(1, text.length)), contentType: 'application/json' };
      }),
    },
  );
}

/** A token request's form (RFC 6749 §4.4.2): mostly a grant, often hostile values, now and then not a form. */
function tokenForm(garbage: fc.Arbitrary<Body>): fc.Arbitrary<Body> {
  const value = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom('client_credentials', 'listings:read', 'contacts:read listings:read'),
    },
    { weight: 1, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
    { weight: 1, arbitrary: hostileText(30) },
  );
  const form = fc.record({ grant_type: value, scope: value }, { requiredKeys: [] }).map((fields): Body => ({
    payload: new URLSearchParams(fields).toString(),
    contentType: 'application/x-www-form-urlencoded',
  }));
  return fc.oneof(
    { weight: 8, arbitrary: form },
    { weight: 1, arbitrary: fc.constant<Body>({}) },
    { weight: 1, arbitrary: garbage },
  );
}

/** The signed hooks: the header each reads and the secret it is signed with. */
const SIGNED_HOOKS: Record<string, { header: string; secret: string }> = {
  'hooks.messaging.receive': { header: 'x-hub-signature-256', secret: HOOK_SECRET },
  'hooks.email.bounces': { header: 'x-email-signature', secret: BOUNCE_SECRET },
};

/** Signs a hook's body the way its sender does (most of the time). */
function hookSignature(payload: string | Buffer | undefined, secret: string) {
  const valid = `sha256=${createHmac('sha256', secret)
    .update(payload ?? '')
    .digest('hex')}`;
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(valid) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        'sha256=',
        `sha256=${'0'.repeat(64)}`,
        `sha1=${'a'.repeat(40)}`,
        valid.toUpperCase(),
        `${valid}, ${valid}`,
      ),
    },
  );
}

// ---------------------------------------------------------------------------------------------

/** Every part of a request to `operation`, mostly plausible, often hostile. */
export function requestFor(operation: Operation, world: World): fc.Arbitrary<FuzzRequest> {
  const org = operation.kind === 'admin' ? world.playground : world.tenant;
  const named = namedValues(org.pools);
  const isMcp = operation.operationId === 'mcp.call';
  const takesIdempotency = operation.method === 'POST' && !isMcp;
  return fc
    .record({
      credentials: credentials(operation, org),
      path: pathFor(operation, org),
      query: queryFor(operation, named),
      body: bodyFor(operation, world, org, named),
      idempotency: sometimes(idempotencyKey, takesIdempotency ? 3 : 12),
      odd: sometimes(oddHeaders, 6),
      mcpAccept: fc.oneof(
        { weight: 6, arbitrary: fc.constant('application/json, text/event-stream') },
        { weight: 1, arbitrary: fc.constantFrom('application/json', 'text/event-stream', '*/*') },
      ),
    })
    .chain((parts) => {
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(parts.odd ?? {})) headers[name] = headerSafe(value);
      if (isMcp) headers.accept = parts.mcpAccept;
      Object.assign(headers, parts.credentials);
      if (parts.idempotency !== null) headers['idempotency-key'] = headerSafe(parts.idempotency);
      if (parts.body.contentType !== undefined) headers['content-type'] = parts.body.contentType;
      const request: FuzzRequest = { method: operation.method, url: parts.path + parts.query, headers };
      if (parts.body.payload !== undefined) request.payload = parts.body.payload;
      const hook = SIGNED_HOOKS[operation.operationId];
      if (!hook) return fc.constant(withDescription(request));
      return hookSignature(request.payload, hook.secret).map((signature) =>
        withDescription({ ...request, headers: { ...headers, [hook.header]: signature } }),
      );
    });
}
