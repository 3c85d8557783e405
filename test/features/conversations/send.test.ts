import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createAgent,
  createApiKey,
  createTenant,
  FAST,
  MESSAGING_AGENCY,
  type MessagingTenant,
} from '../../helpers/factories.ts';
import { admin, api, expectError, expectStatus } from '../../helpers/http.ts';
import { queryRows } from '../../../src/db/database.ts';
import { workerJobs } from '../../../src/jobs.ts';
import { newId } from '../../../src/platform/ids/ids.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { eventsOf, inbound, send, storedMessages } from './support.ts';

const HOUR = 60 * 60 * 1000;
let now = new Date();
let app: FastifyInstance;

beforeAll(async () => {
  app = await buildTestApp({}, { clock: () => now });
});
afterAll(async () => {
  await app.close();
});
beforeEach(() => {
  now = new Date();
});

describe('POST /v1/conversations/{contactId}/messages: modes and reasons', () => {
  let agency: MessagingTenant;
  beforeAll(async () => {
    agency = await createTenant(app, MESSAGING_AGENCY);
  });

  it('sends free text while the window is open: 201 OUTBOUND SENT from the contact owner, message.sent', async () => {
    const t0 = new Date();
    now = t0;
    expectStatus(
      await inbound(app, agency.org.id, agency.messaging.contactId, '¿Sigue disponible el piso?'),
      201,
    );
    now = new Date(t0.getTime() + HOUR);
    const message = expectStatus(
      await send(app, agency.secret.key, agency.messaging.contactId, { body: 'Sí, ¿le va bien mañana?' }),
      201,
    ).data;
    expect(message).toMatchObject({
      channel: 'MESSAGING',
      direction: 'OUTBOUND',
      type: 'TEXT',
      body: 'Sí, ¿le va bien mañana?',
      renderedBody: null,
      status: 'SENT',
      contactId: agency.messaging.contactId,
      agentId: agency.messaging.owner.id,
      agent: agency.messaging.owner,
      usage: null,
      timestamp: now.toISOString(),
    });
    expect(message.id).toMatch(/^msg_/);
    expect(message.chatMessageId).toMatch(/^sandbox\./);
    const sent = await eventsOf(agency.org.id, 'message.sent');
    expect(sent.map((e) => e.data.message.id)).toContain(message.id);
    expect(sent.find((e) => e.data.message.id === message.id)?.actor).toEqual({ kind: 'API', userId: null });
    // Sent without an Idempotency-Key: nothing for the platform or a receiver to dedupe by.
    expect(sent.find((e) => e.data.message.id === message.id)?.data.dedupeKey).toBeNull();
    // The sandbox simulates the platform's delivery receipt.
    const stored = (await storedMessages(agency.org.id, agency.messaging.contactId)).find(
      (m) => m.id === message.id,
    );
    expect(stored?.status).toBe('DELIVERED');
    const changed = await eventsOf(agency.org.id, 'message.status_changed');
    expect(changed.find((e) => e.data.message.id === message.id)?.data).toMatchObject({
      previousStatus: 'SENT',
      message: { status: 'DELIVERED' },
    });
  });

  it('keeps the window open at 23:59:59 and closes it at exactly 24:00:00 (TEMPLATE_ONLY with windowExpiresAt)', async () => {
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    const t0 = new Date(Date.now() - 2 * HOUR);
    now = t0;
    expectStatus(await inbound(app, fresh.org.id, fresh.messaging.contactId, 'Hola'), 201);
    now = new Date(t0.getTime() + 24 * HOUR - 1000);
    expectStatus(await send(app, fresh.secret.key, fresh.messaging.contactId, { body: 'Still open' }), 201);
    now = new Date(t0.getTime() + 24 * HOUR);
    const response = await send(app, fresh.secret.key, fresh.messaging.contactId, { body: 'Too late' });
    const error = expectError(response, 409, 'CONFLICT') as Record<string, unknown>;
    expect(error.reason).toBe('TEMPLATE_ONLY');
    expect(error.windowExpiresAt).toBe(new Date(t0.getTime() + 24 * HOUR).toISOString());
    expect(error.message).toContain('window');
  });

  it('answers TEMPLATE_ONLY with windowExpiresAt null to a contact who never wrote', async () => {
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    const error = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, { body: 'Hi' }),
      409,
      'CONFLICT',
    ) as Record<string, unknown>;
    expect(error).toMatchObject({ reason: 'TEMPLATE_ONLY', windowExpiresAt: null });
    // No template and no body either: still the 409 that says what is possible.
    const bare = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, {}),
      409,
      'CONFLICT',
    ) as Record<string, unknown>;
    expect(bare).toMatchObject({ reason: 'TEMPLATE_ONLY', windowExpiresAt: null });
  });

  it('sends an APPROVED template on a closed window: renderedBody and usage {category, billable}', async () => {
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    const message = expectStatus(
      await send(app, fresh.secret.key, fresh.messaging.contactId, {
        templateId: fresh.messaging.approvedId,
        variables: { name: 'Lucía', street: 'Calle Larios' },
      }),
      201,
    ).data;
    expect(message).toMatchObject({
      direction: 'OUTBOUND',
      type: 'TEMPLATE',
      templateId: fresh.messaging.approvedId,
      body: 'Hola {{name}}, el piso de {{ street }} sigue disponible. ¿Quedamos, {{name}}?',
      renderedBody: 'Hola Lucía, el piso de Calle Larios sigue disponible. ¿Quedamos, Lucía?',
      usage: { category: 'MARKETING', billable: true },
      status: 'SENT',
    });
    expect(typeof message.chatMessageId).toBe('string');
  });

  it('refuses a template that is not APPROVED: TEMPLATE_ONLY on a closed window, FREE_FORM on an open one', async () => {
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    const closed = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, {
        templateId: fresh.messaging.pendingId,
        variables: { price: '1' },
      }),
      409,
      'CONFLICT',
    ) as Record<string, unknown>;
    expect(closed).toMatchObject({ reason: 'TEMPLATE_ONLY', windowExpiresAt: null });
    expect(closed.message).toContain('PENDING');
    expectStatus(await inbound(app, fresh.org.id, fresh.messaging.contactId, 'Hola'), 201);
    const open = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, {
        templateId: fresh.messaging.pendingId,
        variables: { price: '1' },
      }),
      409,
      'CONFLICT',
    ) as Record<string, unknown>;
    expect(open.reason).toBe('FREE_FORM');
    expect(open.windowExpiresAt).toBeUndefined();
  });

  it('validates template variables: a missing or unknown one is a 400 naming it; an unknown template is a 400', async () => {
    const missing = expectError(
      await send(app, agency.secret.key, agency.messaging.contactId, {
        templateId: agency.messaging.approvedId,
        variables: { name: 'Ana' },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(missing.details).toEqual([
      { field: 'body.variables.street', message: 'is required by template visit_followup' },
    ]);
    const extra = expectError(
      await send(app, agency.secret.key, agency.messaging.contactId, {
        templateId: agency.messaging.approvedId,
        variables: { name: 'Ana', street: 'Mayor', floor: '2' },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(extra.message).toContain('body.variables.floor');
    const unknown = expectError(
      await send(app, agency.secret.key, agency.messaging.contactId, {
        templateId: 'tpl_0000000000000000000000',
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(unknown.message).toContain('body.templateId');
    const wrongType = expectError(
      await send(app, agency.secret.key, agency.messaging.contactId, {
        templateId: agency.messaging.approvedId,
        variables: { name: 3 },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(wrongType.message).toContain('body.variables');
  });

  it('enforces the body limits: 0 and 4097 characters are 400, 4096 is sent; body with templateId is 400', async () => {
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    expectStatus(await inbound(app, fresh.org.id, fresh.messaging.contactId, 'Hola'), 201);
    const empty = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, { body: '' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(empty.message).toContain('body.body');
    const long = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, { body: 'x'.repeat(4097) }),
      400,
      'VALIDATION_ERROR',
    );
    expect(long.message).toContain('body.body');
    expectStatus(
      await send(app, fresh.secret.key, fresh.messaging.contactId, { body: 'x'.repeat(4096) }),
      201,
    );
    const both = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, {
        body: 'Hi',
        templateId: fresh.messaging.approvedId,
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(both.message).toContain('body.templateId');
    expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, { body: '   ' }),
      400,
      'VALIDATION_ERROR',
    );
    // `variables` defaults to {} (SPEC): sent empty with free text it changes nothing; with values it is a 400.
    const plain = expectStatus(
      await send(app, fresh.secret.key, fresh.messaging.contactId, { body: 'hi', variables: {} }),
      201,
    );
    expect(plain.data).toMatchObject({ body: 'hi', renderedBody: null });
    const stray = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, {
        body: 'hi',
        variables: { name: 'Ana' },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(stray.details).toEqual([
      { field: 'body.variables', message: 'are only for a template (templateId)' },
    ]);
    expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, { body: 'Hi', colour: 'red' }),
      400,
      'VALIDATION_ERROR',
    );
  });

  it('answers BLOCKED for an opted-out contact, a blocked number and a contact without phone, even with a template', async () => {
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    expectStatus(await inbound(app, fresh.org.id, fresh.messaging.contactId, 'Hola'), 201);
    const template = { templateId: fresh.messaging.approvedId, variables: { name: 'A', street: 'B' } };

    expectStatus(
      await admin(
        app,
        'PATCH',
        `/admin/v1/organizations/${fresh.org.id}/conversations/${fresh.messaging.contactId}`,
        {
          blocked: true,
        },
      ),
      200,
    );
    let error = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, { body: 'Hi' }),
      409,
      'CONFLICT',
    ) as Record<string, unknown>;
    expect(error.reason).toBe('BLOCKED');
    expect(error.windowExpiresAt).toBeUndefined();
    expectStatus(
      await admin(
        app,
        'PATCH',
        `/admin/v1/organizations/${fresh.org.id}/conversations/${fresh.messaging.contactId}`,
        {
          blocked: false,
        },
      ),
      200,
    );

    expectStatus(
      await admin(
        app,
        'PATCH',
        `/admin/v1/organizations/${fresh.org.id}/contacts/${fresh.messaging.contactId}`,
        {
          optedOut: true,
        },
      ),
      200,
    );
    error = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, template),
      409,
      'CONFLICT',
    ) as Record<string, unknown>;
    expect(error).toMatchObject({ reason: 'BLOCKED' });
    expect(error.message).toContain('opted out');

    const phoneless = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${fresh.org.id}/contacts`, {
        firstName: 'Sin teléfono',
      }),
      201,
    ).data;
    error = expectError(await send(app, fresh.secret.key, phoneless.id, template), 409, 'CONFLICT') as Record<
      string,
      unknown
    >;
    expect(error).toMatchObject({ reason: 'BLOCKED' });
    expect(error.message).toContain('no phone');
  });

  it('answers HUMAN_AGENT_ONLY while a person has taken the conversation over, and sends again once handed back', async () => {
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    expectStatus(await inbound(app, fresh.org.id, fresh.messaging.contactId, 'Hola'), 201);
    const path = `/admin/v1/organizations/${fresh.org.id}/conversations/${fresh.messaging.contactId}`;
    const taken = expectStatus(await admin(app, 'PATCH', path, { mode: 'HUMAN' }), 200).data;
    expect(taken).toMatchObject({ mode: 'HUMAN', messagingMode: 'HUMAN_AGENT_ONLY', canSendFreeForm: false });
    const error = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, {
        templateId: fresh.messaging.approvedId,
        variables: { name: 'A', street: 'B' },
      }),
      409,
      'CONFLICT',
    ) as Record<string, unknown>;
    expect(error.reason).toBe('HUMAN_AGENT_ONLY');
    expectStatus(await admin(app, 'PATCH', path, { mode: 'AUTOMATED' }), 200);
    expectStatus(await send(app, fresh.secret.key, fresh.messaging.contactId, { body: 'Back to you' }), 201);
    expectError(await admin(app, 'PATCH', path, {}), 400, 'VALIDATION_ERROR');
    expectError(await admin(app, 'PATCH', path, { mode: 'ROBOT' }), 400, 'VALIDATION_ERROR');
  });

  it('checks the blocked state before the human takeover (BLOCKED > HUMAN_AGENT_ONLY)', async () => {
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    const path = `/admin/v1/organizations/${fresh.org.id}/conversations/${fresh.messaging.contactId}`;
    expectStatus(await admin(app, 'PATCH', path, { mode: 'HUMAN', blocked: true }), 200);
    const error = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, { body: 'x' }),
      409,
      'CONFLICT',
    ) as Record<string, unknown>;
    expect(error.reason).toBe('BLOCKED');
  });

  it('answers 404 without an active messaging number, and for an unknown contact', async () => {
    const bare = await createTenant(app, { ...MESSAGING_AGENCY, messaging: { number: false } });
    const error = expectError(
      await send(app, bare.secret.key, bare.messaging.contactId, { body: 'Hi' }),
      404,
      'NOT_FOUND',
    );
    expect(error.message).toContain('messaging number');
    const number = expectStatus(
      await admin(app, 'POST', `/admin/v1/organizations/${bare.org.id}/messaging-numbers`, {
        phone: '+34911234567',
        active: false,
      }),
      201,
    ).data;
    expectError(await send(app, bare.secret.key, bare.messaging.contactId, { body: 'Hi' }), 404, 'NOT_FOUND');
    expectStatus(
      await admin(app, 'PATCH', `/admin/v1/organizations/${bare.org.id}/messaging-numbers/${number.id}`, {
        active: true,
      }),
      200,
    );
    expectError(await send(app, bare.secret.key, bare.messaging.contactId, { body: 'Hi' }), 409, 'CONFLICT');
    expectError(
      await send(app, bare.secret.key, 'ct_0000000000000000000000', { body: 'Hi' }),
      404,
      'NOT_FOUND',
    );
  });

  it('needs a secret key with messages:write: publishable and read-only keys get 403', async () => {
    expectError(
      await send(app, agency.publishable.key, agency.messaging.contactId, { body: 'Hi' }),
      403,
      'FORBIDDEN',
    );
    expectError(
      await send(app, agency.readOnly.key, agency.messaging.contactId, { body: 'Hi' }),
      403,
      'FORBIDDEN',
    );
    const noScope = await createApiKey(app, agency.org.id, {
      type: 'secret',
      scopes: ['contacts:read'],
      ...FAST,
    });
    const error = expectError(
      await send(app, noScope.key, agency.messaging.contactId, { body: 'Hi' }),
      403,
      'FORBIDDEN',
    );
    expect(error.message).toContain('messages:write');
  });

  it('sends as the agent a key is bound to, with its names', async () => {
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    const agent = await createAgent(app, fresh.org.id, { firstName: 'Pablo', lastName: 'Soler' });
    const bound = await createApiKey(app, fresh.org.id, { type: 'secret', agentId: agent.id, ...FAST });
    expectStatus(await inbound(app, fresh.org.id, fresh.messaging.contactId, 'Hola'), 201);
    const message = expectStatus(
      await send(app, bound.key, fresh.messaging.contactId, { body: 'Soy Pablo' }),
      201,
    ).data;
    expect(message).toMatchObject({
      agentId: agent.id,
      agent: { id: agent.id, firstName: 'Pablo', lastName: 'Soler' },
    });
    const sent = await eventsOf(fresh.org.id, 'message.sent');
    expect(sent.at(-1)?.actor).toEqual({ kind: 'API', userId: agent.id });
    // An agentId that is not an agent of the organization is refused at key creation.
    const refused = await admin(app, 'POST', `/admin/v1/organizations/${fresh.org.id}/api-keys`, {
      type: 'secret',
      agentId: 'agt_0000000000000000000000',
    });
    expectError(refused, 400, 'VALIDATION_ERROR');
  });

  it('replays a send with the same Idempotency-Key without sending twice', async () => {
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    expectStatus(await inbound(app, fresh.org.id, fresh.messaging.contactId, 'Hola'), 201);
    const headers = { 'idempotency-key': 'send-once-0001' };
    const first = await send(app, fresh.secret.key, fresh.messaging.contactId, { body: 'Once' }, headers);
    const second = await send(app, fresh.secret.key, fresh.messaging.contactId, { body: 'Once' }, headers);
    expect(expectStatus(second, 201)).toEqual(expectStatus(first, 201));
    expect(second.headers['idempotent-replayed']).toBe('true');
    const outbound = (await storedMessages(fresh.org.id, fresh.messaging.contactId)).filter(
      (m) => m.direction === 'OUTBOUND',
    );
    expect(outbound).toHaveLength(1);
    // The platform got the key (scoped to the organization), and message.sent carries it for receivers.
    const sent = await eventsOf(fresh.org.id, 'message.sent');
    expect(sent.map((e) => e.data.dedupeKey)).toEqual([`${fresh.org.id}:send-once-0001`]);
    // A conflict is a business answer: stored and replayed as well.
    const conflictHeaders = { 'idempotency-key': 'send-once-0002' };
    const template = { templateId: fresh.messaging.pendingId, variables: { price: '1' } };
    expectStatus(
      await send(app, fresh.secret.key, fresh.messaging.contactId, template, conflictHeaders),
      409,
    );
    const replayed = await send(app, fresh.secret.key, fresh.messaging.contactId, template, conflictHeaders);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
  });
});

describe('inbound messages', () => {
  it('open the window, raise the score and record message.received', async () => {
    const agency = await createTenant(app, MESSAGING_AGENCY);
    const before = expectStatus(
      await api(app, 'GET', `/v1/contacts/${agency.messaging.contactId}`, { key: agency.secret.key }),
      200,
    ).data;
    const message = expectStatus(
      await inbound(app, agency.org.id, agency.messaging.contactId, 'Me interesa'),
      201,
    ).data;
    expect(message).toMatchObject({
      direction: 'INBOUND',
      type: 'TEXT',
      status: 'DELIVERED',
      body: 'Me interesa',
      agentId: null,
      agent: null,
      chatMessageId: null,
      timestamp: now.toISOString(),
    });
    const after = expectStatus(
      await api(app, 'GET', `/v1/contacts/${agency.messaging.contactId}`, { key: agency.secret.key }),
      200,
    ).data;
    expect(after.score).toBeGreaterThan(before.score);
    const received = await eventsOf(agency.org.id, 'message.received');
    expect(received).toHaveLength(1);
    expect(received[0]?.data).toMatchObject({
      message: { id: message.id, direction: 'INBOUND' },
      contact: { id: agency.messaging.contactId, score: after.score },
      windowExpiresAt: new Date(now.getTime() + 24 * HOUR).toISOString(),
    });
    const conversation = expectStatus(
      await api(app, 'GET', `/v1/conversations/${agency.messaging.contactId}`, { key: agency.secret.key }),
      200,
    ).data;
    expect(conversation).toMatchObject({
      messagingMode: 'FREE_FORM',
      canSendFreeForm: true,
      windowExpiresAt: new Date(now.getTime() + 24 * HOUR).toISOString(),
      lastMessage: { id: message.id },
    });
  });

  it.each(['STOP', 'baja', ' Unsubscribe! '])(
    'opt the contact out on the keyword %j (contact.updated)',
    async (word) => {
      const agency = await createTenant(app, MESSAGING_AGENCY);
      expectStatus(await inbound(app, agency.org.id, agency.messaging.contactId, word), 201);
      const contact = expectStatus(
        await api(app, 'GET', `/v1/contacts/${agency.messaging.contactId}`, { key: agency.secret.key }),
        200,
      ).data;
      expect(contact.optedOut).toBe(true);
      const updated = await eventsOf(agency.org.id, 'contact.updated');
      expect(updated.at(-1)?.data.changes).toEqual(['optedOut']);
      const error = expectError(
        await send(app, agency.secret.key, agency.messaging.contactId, { body: 'Ok' }),
        409,
        'CONFLICT',
      ) as Record<string, unknown>;
      expect(error.reason).toBe('BLOCKED');
    },
  );

  it('do not opt out on a sentence that merely contains a keyword', async () => {
    const agency = await createTenant(app, MESSAGING_AGENCY);
    expectStatus(
      await inbound(app, agency.org.id, agency.messaging.contactId, 'Please do not stop sending offers'),
      201,
    );
    const contact = expectStatus(
      await api(app, 'GET', `/v1/contacts/${agency.messaging.contactId}`, { key: agency.secret.key }),
      200,
    ).data;
    expect(contact.optedOut).toBe(false);
  });

  it('refuse a blank body, an unknown contact and an unknown organization', async () => {
    const agency = await createTenant(app, MESSAGING_AGENCY);
    expectError(await inbound(app, agency.org.id, agency.messaging.contactId, ''), 400, 'VALIDATION_ERROR');
    expectError(await inbound(app, agency.org.id, agency.messaging.contactId, '  '), 400, 'VALIDATION_ERROR');
    expectError(await inbound(app, agency.org.id, 'ct_0000000000000000000000', 'Hi'), 404, 'NOT_FOUND');
    expectError(
      await inbound(app, 'org_0000000000000000000000', agency.messaging.contactId, 'Hi'),
      404,
      'NOT_FOUND',
    );
  });
});

describe('sends interrupted by a crash', () => {
  it('are settled as FAILED by the worker after 5 minutes (message.status_changed), fresh ones are left alone', async () => {
    const agency = await createTenant(app, MESSAGING_AGENCY);
    const db = await testDatabase();
    // What a process that died between the two transactions of a send leaves behind.
    const queued = async (ageMs: number) => {
      const id = newId('msg');
      await db.tenantTx(agency.org.id, (tx) =>
        queryRows(
          tx,
          sql`INSERT INTO messages (id, organization_id, contact_id, direction, type, body, status, created_at)
              VALUES (${id}, ${agency.org.id}, ${agency.messaging.contactId}, 'OUTBOUND', 'TEXT', 'Lost', 'QUEUED', ${new Date(Date.now() - ageMs).toISOString()})
              RETURNING id`,
        ),
      );
      return id;
    };
    const old = await queued(6 * 60_000);
    const fresh = await queued(60_000);
    const job = workerJobs(db).find((candidate) => candidate.name === 'messages.fail_interrupted');
    await job?.run();
    const stored = await storedMessages(agency.org.id, agency.messaging.contactId);
    expect(stored.find((m) => m.id === old)).toMatchObject({ status: 'FAILED' });
    expect(stored.find((m) => m.id === old)?.failure_reason).toContain('outcome is unknown');
    expect(stored.find((m) => m.id === fresh)?.status).toBe('QUEUED');
    const changed = await eventsOf(agency.org.id, 'message.status_changed');
    expect(changed.map((e) => [e.data.message.id, e.data.previousStatus, e.data.message.status])).toEqual([
      [old, 'QUEUED', 'FAILED'],
    ]);
  });
});

describe('POST /v1/conversations/{contactId}/messages: the body schema (free text or template)', () => {
  it('documents the two shapes as a oneOf, and its 400s name the field in the words the service used', async () => {
    const document = expectStatus(await api(app, 'GET', '/v1/openapi.json'), 200);
    const schema = document.components.schemas.SendMessageBody;
    expect(schema.oneOf.map((shape: { title: string }) => shape.title)).toEqual(['Free text', 'Template']);
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    const both = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, {
        body: 'Hi',
        templateId: fresh.messaging.approvedId,
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(both.details).toEqual([
      { field: 'body.templateId', message: 'cannot be sent with body: send free text or a template' },
    ]);
    const blank = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, { body: ' \n\t ' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(blank.details).toEqual([{ field: 'body.body', message: 'must not be blank' }]);
    const badName = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, {
        templateId: fresh.messaging.approvedId,
        variables: { 'not a name': 'x' },
      }),
      400,
      'VALIDATION_ERROR',
    );
    expect(badName.details?.every((detail) => detail.field.startsWith('body.variables'))).toBe(true);
  });

  it('lets through what fits a shape: `variables: {}` alone reaches the service, which answers the mode', async () => {
    const fresh = await createTenant(app, MESSAGING_AGENCY);
    const error = expectError(
      await send(app, fresh.secret.key, fresh.messaging.contactId, { variables: {} }),
      409,
      'CONFLICT',
    ) as Record<string, unknown>;
    expect(error).toMatchObject({ reason: 'TEMPLATE_ONLY' });
  });
});
