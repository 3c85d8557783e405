/**
 * Compile-time checks of the client's types, run by `npm run typecheck` (never executed): each
 * `@ts-expect-error` fails the typecheck if the mistake below it stops being a type error.
 */
import type { Client, WebhookEvent } from '../../clients/typescript/src/index.ts';

declare const client: Client;
declare const event: WebhookEvent;

export async function typeChecks(): Promise<void> {
  const me = await client.me.get();
  const scopes: string[] = me.data.scopes;
  const requestId: string | undefined = me.lastResponse.requestId;

  // @ts-expect-error firstName is required
  await client.leads.create({ phone: '+34 612 345 678' });
  // @ts-expect-error a lead has no such field
  await client.leads.create({ firstName: 'Ana', phone: '+34 612 345 678', colour: 'red' });
  // @ts-expect-error sortBy takes only the documented values
  void client.properties.list({ sortBy: 'bedrooms' });
  // @ts-expect-error the contact id comes first
  await client.contacts.get();
  // @ts-expect-error the body of a message is a string
  await client.conversations.messages.send('ct_1', { body: 42 });

  for await (const property of client.properties.list({ city: 'Málaga' })) {
    const price: number = property.price;
    // @ts-expect-error the portal never shows internal notes
    void property.internalNotes;
    void price;
  }
  const page = await client.deals.list({ status: 'OPEN' });
  // @ts-expect-error meta is page mode or cursor mode: narrow first
  void page.meta.totalPages;
  const totalPages: number = 'totalPages' in page.meta ? page.meta.totalPages : 0;
  for await (const contact of client.contacts.iterate({ updatedAfter: '2027-01-01T00:00:00Z' })) {
    const updatedAt: string = contact.updatedAt;
    void updatedAt;
  }
  for await (const logged of client.eventLog.iterate({ after: 0, type: ['contact.*'] })) {
    const sequence: number = logged.sequence;
    void sequence;
  }

  if (event.type === 'deal.won') {
    const value: number = event.data.deal.value;
    const toStage: string = event.data.transition.toStageName;
    void [value, toStage];
  }
  // @ts-expect-error `data` differs per type: narrow on `type` first
  void event.data.deal;
  void [scopes, requestId, totalPages];
}
