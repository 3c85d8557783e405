// A webhook receiver on node:http: verifies each delivery's signature, answers at once, and handles
// each event once (deliveries are at least once: a retry or a replay repeats an event id).
//
//   WEBHOOK_SECRET=whsec_… PORT=8080 node examples/webhook-receiver.mjs
//   (during a secret rotation: WEBHOOK_SECRET=whsec_new,whsec_old)
import { createServer } from 'node:http';
import { verifyWebhook, WebhookVerificationError } from '@agency-crm/client';

const SECRETS = (process.env.WEBHOOK_SECRET ?? '').split(',').filter(Boolean);
const PORT = Number(process.env.PORT ?? 8080);
if (SECRETS.length === 0) throw new Error('Set WEBHOOK_SECRET to the subscription secret (whsec_…)');

/**
 * Dedupe by event id: true the first time an id is seen. Remembers the last `limit` ids in memory;
 * in production use a table with a unique index on the id (insert, and skip on conflict).
 */
function createDedupe(limit = 10_000) {
  const seen = new Set();
  return (id) => {
    if (seen.has(id)) return false;
    seen.add(id);
    if (seen.size > limit) seen.delete(seen.values().next().value);
    return true;
  };
}
const firstTime = createDedupe();

function handle(event) {
  switch (event.type) {
    case 'contact.created':
      console.log(`received contact.created ${event.id}: ${event.data.contact.fullName}`);
      break;
    case 'deal.won':
      console.log(`received deal.won ${event.id}: ${event.data.deal.title} (${event.data.deal.value})`);
      break;
    default:
      console.log(`received ${event.type} ${event.id}`);
  }
}

createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', async () => {
    let event;
    try {
      // The raw bytes, before any JSON parsing: re-serialised JSON would not verify.
      event = await verifyWebhook(Buffer.concat(chunks), request.headers['x-service-signature'], SECRETS);
    } catch (error) {
      const refused = error instanceof WebhookVerificationError;
      console.log(`rejected: ${refused ? `${error.reason}: ${error.message}` : error}`);
      response
        .writeHead(refused ? 400 : 500, { 'content-type': 'text/plain' })
        .end(refused ? error.reason : '');
      return;
    }
    // Answer within 10 seconds, then work: a slow answer counts as a failure and is retried.
    response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    if (!firstTime(event.id)) {
      console.log(`duplicate ${event.type} ${event.id}`);
      return;
    }
    handle(event);
  });
}).listen(PORT, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${PORT}`));
