/**
 * An organization's email templates through v1 (issue 41, decision 0268): every kind in es, en, pt and
 * the organization's other languages, built-in until replaced (PUT), back to built-in (DELETE),
 * previewed with sample values; every part checked against the kind's variables (400 naming the part
 * and the tag); kept per organization; read with email:read, written with email:write.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EMAIL_KINDS, type EmailKind } from '../../../src/features/email/index.ts';
import { SCOPES } from '../../../src/platform/auth/scopes.ts';
import { createApiKey, createTenant, FAST, type Tenant } from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { buildTestApp } from '../../helpers/test-app.ts';

let app: FastifyInstance;

beforeAll(async () => {
  app = await buildTestApp();
});
afterAll(async () => {
  await app.close();
});

const fresh = () => createTenant(app, { secret: FAST });
const url = (kind: string, language: string, tail = '') => `/v1/email/templates/${kind}/${language}${tail}`;

type Method = 'GET' | 'PUT' | 'DELETE' | 'POST' | 'PATCH';
const call = (key: string, method: Method, path: string, body?: unknown) =>
  api(app, method, path, { key, body });

/** A valid visit confirmation of the organization's own. */
const MINE = {
  subject: 'Te esperamos{{#propertyTitle}} en {{propertyTitle}}{{/propertyTitle}} el {{date}}',
  html: '<p>Hola {{firstName}}, te esperamos a las {{time}}{{#address}} en {{address}}{{/address}}.</p><p><a href="{{manageUrl}}">Gestionar</a></p>',
  text: 'Hola {{firstName}}, te esperamos a las {{time}}{{#address}} en {{address}}{{/address}}.\n{{manageUrl}}\n',
};

/** Asserts a 400 VALIDATION_ERROR whose message contains every one of `parts`, and returns the message. */
function expect400(response: Parameters<typeof expectError>[0], ...parts: string[]): string {
  const error = expectError(response, 400, 'VALIDATION_ERROR');
  for (const part of parts) expect(error.message, error.message).toContain(part);
  return error.message;
}

describe('the templates list', () => {
  it('lists every kind in es, en and pt, built in, with its variables and subject', async () => {
    const org = await fresh();
    const list = expectStatus(await call(org.secret.key, 'GET', '/v1/email/templates'), 200);
    expect(Object.keys(list)).toEqual(['data']);
    expect(list.data).toHaveLength(EMAIL_KINDS.length * 3);
    expect(
      list.data.map((item: { kind: string; language: string }) => `${item.kind}/${item.language}`),
    ).toEqual(EMAIL_KINDS.flatMap((kind) => ['es', 'en', 'pt'].map((language) => `${kind}/${language}`)));
    const confirmation = list.data.find(
      (item: { kind: string; language: string }) =>
        item.kind === 'VISIT_CONFIRMATION' && item.language === 'es',
    );
    expect(confirmation).toEqual({
      kind: 'VISIT_CONFIRMATION',
      language: 'es',
      custom: false,
      fallbackLanguage: null,
      variables: expect.arrayContaining(['firstName', 'date', 'time', 'address', 'manageUrl']),
      subject: expect.stringContaining('{{date}}'),
      updatedAt: null,
    });
    // The read-only key reads too.
    expectStatus(await call(org.readOnly.key, 'GET', '/v1/email/templates'), 200);
  });

  it("adds the organization's other languages, which fall back to its default language, then English", async () => {
    const org = await fresh();
    const languages = { defaultLanguage: 'es', languages: ['es', 'de', 'fr'] };
    expectStatus(await admin(app, 'PATCH', `/admin/v1/organizations/${org.org.id}`, languages), 200);
    const list = expectStatus(await call(org.secret.key, 'GET', '/v1/email/templates'), 200).data;
    expect(list).toHaveLength(EMAIL_KINDS.length * 5);
    const german = list.find(
      (item: { kind: string; language: string }) => item.kind === 'LEAD_ALERT' && item.language === 'de',
    );
    expect(german).toMatchObject({
      custom: false,
      fallbackLanguage: 'es',
      subject: expect.stringMatching(/^Nuevo contacto/),
    });

    // Its own German template is used for German; French still falls back to Spanish.
    const put = await call(org.secret.key, 'PUT', url('LEAD_ALERT', 'de'), {
      subject: 'Neue Anfrage: {{contactName}}',
      html: '<p>{{contactName}} ({{contactPhone}}) schreibt: {{message}}</p>',
      text: '{{contactName}} ({{contactPhone}}) schreibt: {{message}}',
    });
    expect(expectStatus(put, 200).data).toMatchObject({
      language: 'de',
      custom: true,
      fallbackLanguage: null,
    });
    const french = expectStatus(await call(org.secret.key, 'GET', url('LEAD_ALERT', 'fr')), 200).data;
    expect(french).toMatchObject({ custom: false, fallbackLanguage: 'es' });

    // A language the organization does not use is a 400 naming the path's language.
    expect400(
      await call(org.secret.key, 'GET', url('LEAD_ALERT', 'it')),
      'path.language',
      'es, en, pt, de, fr',
    );
    expect400(await call(org.secret.key, 'PUT', url('LEAD_ALERT', 'it'), MINE), 'path.language');
  });
});

describe('one template', () => {
  it('is the built-in one until replaced, then the custom one, until deleted', async () => {
    const org = await fresh();
    const builtIn = expectStatus(
      await call(org.secret.key, 'GET', url('VISIT_CONFIRMATION', 'pt')),
      200,
    ).data;
    expect(builtIn).toMatchObject({
      kind: 'VISIT_CONFIRMATION',
      language: 'pt',
      custom: false,
      updatedAt: null,
    });
    expect(builtIn.subject).toMatch(/^Visita marcada/);
    expect(builtIn.html).toContain('{{manageUrl}}');
    expect(builtIn.text).toContain('{{date}}');
    expect(builtIn.html).not.toMatch(/unsubscribe|darse de baja|cancelar a subscrição/i);

    const saved = expectStatus(
      await call(org.secret.key, 'PUT', url('VISIT_CONFIRMATION', 'pt'), MINE),
      200,
    ).data;
    expect(saved).toEqual({
      kind: 'VISIT_CONFIRMATION',
      language: 'pt',
      custom: true,
      fallbackLanguage: null,
      variables: builtIn.variables,
      ...MINE,
      updatedAt: expect.any(String),
    });
    expect(
      expectStatus(await call(org.secret.key, 'GET', url('VISIT_CONFIRMATION', 'pt')), 200).data,
    ).toEqual(saved);
    // PUT again: the same answer, the template replaced in place.
    const again = await call(org.secret.key, 'PUT', url('VISIT_CONFIRMATION', 'pt'), {
      ...MINE,
      subject: 'Visita',
    });
    expect(expectStatus(again, 200).data).toMatchObject({ custom: true, subject: 'Visita' });
    const list = expectStatus(await call(org.secret.key, 'GET', '/v1/email/templates'), 200).data;
    const customs = list.filter((item: { custom: boolean }) => item.custom);
    expect(customs).toEqual([
      expect.objectContaining({ kind: 'VISIT_CONFIRMATION', language: 'pt', subject: 'Visita' }),
    ]);

    // DELETE: the built-in one again, answered; a second DELETE is a 404.
    const reset = expectStatus(
      await call(org.secret.key, 'DELETE', url('VISIT_CONFIRMATION', 'pt')),
      200,
    ).data;
    expect(reset).toEqual(builtIn);
    const gone = expectError(
      await call(org.secret.key, 'DELETE', url('VISIT_CONFIRMATION', 'pt')),
      404,
      'NOT_FOUND',
    );
    expect(gone.message).toContain('VISIT_CONFIRMATION/pt');
    expect(
      expectStatus(await call(org.secret.key, 'GET', url('VISIT_CONFIRMATION', 'pt')), 200).data,
    ).toEqual(builtIn);
  });

  it('refuses an unknown kind or a malformed language with a 400 naming the path parameter', async () => {
    const org = await fresh();
    for (const method of ['GET', 'PUT', 'DELETE'] as const) {
      expect400(await call(org.secret.key, method, url('VISIT_PARTY', 'es'), MINE), 'path.kind');
      expect400(await call(org.secret.key, method, url('VISIT_CONFIRMATION', 'ES'), MINE), 'path.language');
      expect400(await call(org.secret.key, method, url('VISIT_CONFIRMATION', 'spa'), MINE), 'path.language');
    }
    expect400(await call(org.secret.key, 'POST', url('NOPE', 'es', '/preview'), {}), 'path.kind');
  });
});

describe('what a template may say', () => {
  const refused: [string, Partial<typeof MINE>, string[]][] = [
    [
      'an unknown variable',
      { html: '<p>{{foo}}</p>' },
      ['body.html', 'unknown variable {{foo}}', 'allowed: agencyName'],
    ],
    ['an unknown triple-mustache', { text: '{{{price}}}' }, ['body.text', '{{{price}}}']],
    [
      'an unknown section',
      { text: '{{#contactPhone}}x{{/contactPhone}}' },
      ['body.text', '{{#contactPhone}}'],
    ],
    ['an unknown inverted section', { subject: '{{^link}}x{{/link}}' }, ['body.subject', '{{^link}}']],
    ['a partial', { html: '{{>footer}}' }, ['body.html', 'partial {{>footer}}']],
    ['a dotted name', { text: '{{address.city}}' }, ['body.text', 'dotted']],
    [
      'an unclosed section',
      { html: '{{#address}}<p>{{address}}</p>' },
      ['body.html', 'Unclosed section "address"'],
    ],
    ['an unopened section', { text: 'x{{/address}}' }, ['body.text', 'Unopened section']],
    ['an unclosed tag', { subject: 'Visita {{date' }, ['body.subject', 'Unclosed tag']],
    ['an unescaped value in HTML', { html: '<p>{{{address}}}</p>' }, ['body.html', 'unescaped']],
    ['an {{&}} value in HTML', { html: '<p>{{&address}}</p>' }, ['body.html', 'unescaped']],
    ['a subject of two lines', { subject: 'Visita\n{{date}}' }, ['body.subject', 'one line']],
    ['a subject over 200 characters', { subject: 'x'.repeat(201) }, ['body.subject', '200']],
    ['an HTML part over 100,000 characters', { html: 'x'.repeat(100_001) }, ['body.html', '100000']],
    ['a blank text part', { text: '   ' }, ['body.text', 'blank']],
  ];

  it.each(refused)(
    'refuses %s with a 400 naming the part and the tag, and stores nothing',
    async (_label, part, words) => {
      const org = await fresh();
      expect400(
        await call(org.secret.key, 'PUT', url('VISIT_CONFIRMATION', 'es'), { ...MINE, ...part }),
        ...words,
      );
      // The same draft in a preview is refused the same way.
      expect400(
        await call(org.secret.key, 'POST', url('VISIT_CONFIRMATION', 'es', '/preview'), part),
        ...words,
      );
      const stored = expectStatus(
        await call(org.secret.key, 'GET', url('VISIT_CONFIRMATION', 'es')),
        200,
      ).data;
      expect(stored.custom).toBe(false);
    },
  );

  it("takes each kind's own variables: an alert's {{link}} and {{message}} are not a visit's", async () => {
    const org = await fresh();
    const alert = { subject: 'Lead {{contactName}}', html: '<p>{{message}}</p>', text: '{{link}}' };
    expectStatus(await call(org.secret.key, 'PUT', url('LEAD_ALERT', 'en'), alert), 200);
    expect400(
      await call(org.secret.key, 'PUT', url('VISIT_REMINDER', 'en'), alert),
      'body.subject',
      '{{contactName}}',
    );
    // A comment is no variable; a missing part is a 400 of the schema.
    expectStatus(
      await call(org.secret.key, 'PUT', url('VISIT_REMINDER', 'en'), {
        ...MINE,
        text: '{{! note }}{{date}}',
      }),
      200,
    );
    expect400(
      await call(org.secret.key, 'PUT', url('VISIT_REMINDER', 'en'), { subject: 'x', html: 'y' }),
      'body',
      'text',
    );
  });
});

describe('the preview', () => {
  it('renders the template in effect with the sample values, the HTML escaped and the text as it is', async () => {
    const org = await fresh();
    const preview = await call(org.secret.key, 'POST', url('VISIT_CONFIRMATION', 'es', '/preview'));
    const rendered = expectStatus(preview, 200).data;
    expect(Object.keys(rendered)).toEqual(['subject', 'html', 'text']);
    expect(rendered.subject).toBe(
      'Visita reservada: Piso luminoso con terraza en el Soho – 14/10/2027, 10:30',
    );
    expect(rendered.text).toContain('Hola Marta,');
    expect(rendered.text).toContain('Calle Tomás Heredia 12, 29001 Málaga');
    expect(rendered.text).toContain('https://crm.costa-homes.example/visits/');
    expect(rendered.html).toContain('Hola Marta,');
    expect(rendered.html).not.toMatch(/\{\{|\}\}/);
    expect(rendered.text).not.toMatch(/\{\{|\}\}/);

    // Values over the samples: escaped in HTML only, null leaves its section out, the subject one line.
    const over = await call(org.secret.key, 'POST', url('VISIT_CONFIRMATION', 'es', '/preview'), {
      variables: { firstName: 'Ana <b>&</b>', address: null, propertyTitle: 'Ático\nen Málaga' },
    });
    const custom = expectStatus(over, 200).data;
    expect(custom.html).toContain('Hola Ana &lt;b&gt;&amp;&lt;&#x2F;b&gt;,');
    expect(custom.text).toContain('Hola Ana <b>&</b>,');
    expect(custom.text).not.toContain('Dirección');
    expect(custom.html).not.toContain('Dirección');
    expect(custom.subject).toBe('Visita reservada: Ático en Málaga – 14/10/2027, 10:30');
  });

  it('renders a draft, part by part, over the template in effect, and stores nothing', async () => {
    const org = await fresh();
    expectStatus(await call(org.secret.key, 'PUT', url('VISIT_REMINDER', 'en'), MINE), 200);
    const draft = await call(org.secret.key, 'POST', url('VISIT_REMINDER', 'en', '/preview'), {
      subject: 'Tomorrow: {{propertyTitle}}',
      variables: { propertyTitle: 'Villa in Marbella' },
    });
    const rendered = expectStatus(draft, 200).data;
    expect(rendered.subject).toBe('Tomorrow: Villa in Marbella');
    expect(rendered.text).toBe(
      'Hola Marta, te esperamos a las 10:30 en Calle Tomás Heredia 12, 29001 Málaga.\nhttps://crm.costa-homes.example/visits/org_0VhJ3k.apt_0VhJ3k.key_1.3f9a2c\n',
    );
    const stored = expectStatus(await call(org.secret.key, 'GET', url('VISIT_REMINDER', 'en')), 200).data;
    expect(stored.subject).toBe(MINE.subject);
  });

  it('refuses a variable the kind does not have, and a language the organization does not use', async () => {
    const org = await fresh();
    const path = url('VISIT_REQUEST_ALERT', 'pt', '/preview');
    expectStatus(await call(org.secret.key, 'POST', path, { variables: { preferredTime: 'à tarde' } }), 200);
    expect400(
      await call(org.secret.key, 'POST', path, { variables: { manageUrl: 'https://x' } }),
      'body.variables.manageUrl',
      'VISIT_REQUEST_ALERT',
    );
    expect400(
      await call(org.secret.key, 'POST', url('VISIT_REQUEST_ALERT', 'de', '/preview'), {}),
      'path.language',
    );
  });

  it('renders every built-in template of every kind and language without a tag left', async () => {
    const org = await fresh();
    for (const kind of EMAIL_KINDS as readonly EmailKind[]) {
      for (const language of ['es', 'en', 'pt']) {
        const rendered = expectStatus(
          await call(org.readOnly.key, 'POST', url(kind, language, '/preview')),
          200,
        ).data;
        for (const part of ['subject', 'html', 'text'] as const) {
          expect(rendered[part], `${kind}/${language} ${part}`).not.toMatch(/\{\{|\}\}/);
          expect(rendered[part].length, `${kind}/${language} ${part}`).toBeGreaterThan(10);
        }
      }
    }
  });
});

describe('tenancy and keys', () => {
  let a: Tenant;
  let b: Tenant;
  beforeAll(async () => {
    [a, b] = [await fresh(), await fresh()];
  });

  it("keeps each organization's templates its own: another sees the built-in one and cannot delete it", async () => {
    expectStatus(
      await call(a.secret.key, 'PUT', url('BOOKING_ALERT', 'en'), { ...MINE, subject: 'A only' }),
      200,
    );
    const theirs = expectStatus(await call(b.secret.key, 'GET', url('BOOKING_ALERT', 'en')), 200).data;
    expect(theirs).toMatchObject({ custom: false, updatedAt: null });
    expect(theirs.subject).not.toBe('A only');
    const list = expectStatus(await call(b.secret.key, 'GET', '/v1/email/templates'), 200).data;
    expect(list.some((item: { custom: boolean }) => item.custom)).toBe(false);
    const preview = expectStatus(
      await call(b.secret.key, 'POST', url('BOOKING_ALERT', 'en', '/preview')),
      200,
    ).data;
    expect(preview.subject).not.toBe('A only');
    expectError(await call(b.secret.key, 'DELETE', url('BOOKING_ALERT', 'en')), 404, 'NOT_FOUND');
    expect(expectStatus(await call(a.secret.key, 'GET', url('BOOKING_ALERT', 'en')), 200).data.subject).toBe(
      'A only',
    );
  });

  it("gives a test key the test twin's templates", async () => {
    const testKey = await createApiKey(app, a.org.id, {
      type: 'secret',
      mode: 'test',
      accessLevel: 3,
      ...FAST,
    });
    const twin = expectStatus(await call(testKey.key, 'GET', url('BOOKING_ALERT', 'en')), 200).data;
    expect(twin.custom).toBe(false);
  });

  it('reads with email:read (secret or read-only key), writes with email:write at level 3; a publishable key gets 403', async () => {
    const make = (body: Record<string, unknown>) =>
      createApiKey(app, a.org.id, { type: 'secret', ...FAST, ...body });
    const noRead = await make({ scopes: SCOPES.filter((s) => s !== 'email:read'), accessLevel: 3 });
    const noWrite = await make({ scopes: SCOPES.filter((s) => s !== 'email:write'), accessLevel: 3 });
    const level2 = await make({ scopes: [...SCOPES], accessLevel: 2 });
    const reads: [Method, string][] = [
      ['GET', '/v1/email/templates'],
      ['GET', url('LEAD_ALERT', 'es')],
      ['POST', url('LEAD_ALERT', 'es', '/preview')],
    ];
    const writes: [Method, string, unknown][] = [
      ['PUT', url('VISIT_CONFIRMATION', 'en'), MINE],
      ['DELETE', url('BOOKING_ALERT', 'en'), undefined],
    ];
    for (const [method, path] of reads) {
      for (const key of [a.secret.key, a.readOnly.key, noWrite.key, level2.key])
        expectStatus(await call(key, method, path), 200);
      for (const key of [a.publishable.key, noRead.key]) {
        const error = expectError(await call(key, method, path), 403, 'FORBIDDEN');
        if (key === noRead.key) expect(error.message).toContain('email:read');
      }
    }
    for (const [method, path, body] of writes) {
      for (const key of [a.readOnly.key, a.publishable.key, noWrite.key, level2.key]) {
        expectError(await call(key, method, path, body), 403, 'FORBIDDEN');
      }
      expectError(await call(noWrite.key, method, path, body), 403, 'FORBIDDEN');
    }
    // None of the refused writes landed.
    expect(
      expectStatus(await call(a.secret.key, 'GET', url('VISIT_CONFIRMATION', 'en')), 200).data.custom,
    ).toBe(false);
    expect(expectStatus(await call(a.secret.key, 'GET', url('BOOKING_ALERT', 'en')), 200).data.custom).toBe(
      true,
    );
    expectError(await call('sk_nope', 'GET', '/v1/email/templates'), 401, 'UNAUTHORIZED');
  });
});
