// Emails and a contact's personal data (issue 41, docs/privacy.md): erasing a contact deletes their
// emails (to them, and alerts about them) and the suppressions of their addresses, while an agent's
// bounced address stays suppressed; a merge moves the source's emails to the target; the export of a
// contact lists their emails.
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createContact, createTenant, type Tenant } from '../../helpers/factories.ts';
import { api, expectStatus } from '../../helpers/http.ts';
import { buildTestApp, testDatabase } from '../../helpers/test-app.ts';
import { rows, seedEmail, suppressionsOf } from './support.ts';

let app: FastifyInstance;
let tenant: Tenant;

beforeAll(async () => {
  app = await buildTestApp();
  tenant = await createTenant(app);
});
afterAll(async () => {
  await app.close();
});

const newContact = async (email: string) =>
  (await createContact(app, tenant, { via: 'api', body: { firstName: 'Marta', lastName: 'Gil', email } })).id;

const emailsOf = (contactId: string) =>
  rows<{ id: string }>(sql`SELECT id FROM emails WHERE contact_id = ${contactId} ORDER BY id`);

async function bounced(address: string, fields: Parameters<typeof seedEmail>[1] = {}) {
  const email = await seedEmail(tenant.org.id, { toAddress: address, status: 'BOUNCED', ...fields });
  const db = await testDatabase();
  await db.tenantTx(tenant.org.id, (tx) =>
    tx.execute(
      sql`INSERT INTO email_suppressions (organization_id, address, reason, email_id)
          VALUES (${tenant.org.id}, ${address.toLowerCase()}, '550', ${email.id})`,
    ),
  );
  return email;
}

describe('erasing a contact', () => {
  it("deletes their emails and their addresses' suppressions, nothing of anyone else's", async () => {
    const contactId = await newContact('marta.gil@example.com');
    const other = await newContact('ines@example.com');
    const toThem = await seedEmail(tenant.org.id, { contactId, toAddress: 'marta.gil@example.com' });
    // An old address of theirs that bounced, and an alert about them to an agent whose address bounced.
    await bounced('Marta.Old@example.com', { contactId });
    await bounced('agent.gone@example.com', { contactId, kind: 'LEAD_ALERT' });
    await bounced('marta.gil@example.com', { contactId });
    const theirs = await seedEmail(tenant.org.id, { contactId: other, toAddress: 'ines@example.com' });
    const theirBounce = await bounced('ines@example.com', { contactId: other });
    expect(await emailsOf(contactId)).toHaveLength(4);

    expectStatus(await api(app, 'DELETE', `/v1/contacts/${contactId}`, { key: tenant.secret.key }), 200);

    expect(await emailsOf(contactId)).toEqual([]);
    expect(await rows(sql`SELECT id FROM emails WHERE id = ${toThem.id}`)).toEqual([]);
    expect((await suppressionsOf(tenant.org.id)).map((row) => row.address).sort()).toEqual([
      'agent.gone@example.com',
      'ines@example.com',
    ]);
    expect((await emailsOf(other)).map((row) => row.id).sort()).toEqual([theirs.id, theirBounce.id].sort());
    const left = await rows<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM emails WHERE organization_id = ${tenant.org.id}
            AND (to_address ILIKE '%marta%' OR html ILIKE '%marta%' OR subject ILIKE '%marta%')`,
    );
    expect(left[0]?.n).toBe(0);
  });
});

describe('merging contacts', () => {
  it("moves the source's emails to the target", async () => {
    const target = await newContact('target@example.com');
    const source = await newContact('source@example.com');
    const email = await seedEmail(tenant.org.id, { contactId: source, toAddress: 'source@example.com' });
    expectStatus(
      await api(app, 'POST', `/v1/contacts/${target}/merge`, {
        key: tenant.secret.key,
        body: { sourceContactId: source },
      }),
      200,
    );
    expect(await emailsOf(target)).toEqual([{ id: email.id }]);
    expect(await emailsOf(source)).toEqual([]);
  });
});

describe("a contact's export", () => {
  it('lists their emails', async () => {
    const contactId = await newContact('export@example.com');
    const email = await seedEmail(tenant.org.id, { contactId, toAddress: 'export@example.com' });
    const exported = expectStatus(
      await api(app, 'GET', `/v1/contacts/${contactId}/export`, { key: tenant.secret.key }),
      200,
    );
    expect(exported.data.records.emails).toMatchObject([
      { id: email.id, toAddress: 'export@example.com', subject: 'Your visit on Thursday' },
    ]);
  });
});
