// mirror.mjs: keeps a copy of an agency's contacts and deals, complete and current, with deletions.
// 1. note where the event log stands, 2. load every row by cursor, 3. follow the log from the
// noted position, forever. Nothing committed after step 1 is missed, nothing is applied twice.
//
//   AGENCY_CRM_URL=http://127.0.0.1:3000 AGENCY_CRM_SECRET_KEY=service_sk_live_… \
//   MIRROR_FILE=mirror.json node examples/mirror.mjs
import { writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { createClient } from '@agency-crm/client';

const client = createClient({
  apiKey: process.env.AGENCY_CRM_SECRET_KEY ?? '',
  baseUrl: process.env.AGENCY_CRM_URL ?? 'http://127.0.0.1:3000',
});
const FILE = process.env.MIRROR_FILE ?? 'mirror.json';
const POLL_MS = Number(process.env.MIRROR_POLL_MS ?? 2000);

// The mirror. In production: your tables, and `position` stored in the same transaction as the
// rows it covers, so a restart resumes exactly where the last commit left off.
const tables = { contact: new Map(), deal: new Map() };
let position = 0;

// 1. Where the log stands now. Every change committed from here on is an event after `position`.
const [last] = (await client.eventLog.list({ order: 'desc', pageSize: 1 })).data;
position = last?.sequence ?? 0;

// 2. The initial load, in cursor mode (keyset on updatedAt, id): every row however many, and a row
//    changed during the walk shows up again later. Changes made meanwhile are also in the log.
for await (const contact of client.contacts.iterate({ pageSize: 100 }))
  tables.contact.set(contact.id, contact);
for await (const deal of client.deals.iterate({ pageSize: 100 })) tables.deal.set(deal.id, deal);
save();

// 3. Follow the log. Events come in commit order, each once; `*.deleted` carries a tombstone.
function apply(event) {
  const [object, action] = event.type.split('.');
  const table = tables[object];
  const item = event.data[object];
  if (action === 'deleted') {
    table.delete(item.id);
    // A deleted contact's deals went with it (each has its own deal.deleted, just before).
  } else {
    // created, updated, stage_changed, won, lost: the event carries the whole object as it is now.
    table.set(item.id, item);
  }
}

function save() {
  const rows = (table) => [...table.values()].sort((a, b) => a.id.localeCompare(b.id));
  writeFileSync(FILE, JSON.stringify({ position, contacts: rows(tables.contact), deals: rows(tables.deal) }));
}

for (;;) {
  for await (const event of client.eventLog.iterate({
    after: position,
    type: ['contact.*', 'deal.*'],
    pageSize: 100,
  })) {
    apply(event);
    position = event.sequence;
  }
  save();
  await sleep(POLL_MS);
}
