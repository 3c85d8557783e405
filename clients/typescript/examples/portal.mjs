// The public portal with the publishable key: list every published property, then capture a lead
// for the first one, as a website's server or a static-site build would.
//
//   AGENCY_CRM_URL=http://127.0.0.1:3000 AGENCY_CRM_PUBLISHABLE_KEY=service_pk_live_… node examples/portal.mjs
import { ApiError, createClient } from '@agency-crm/client';

const client = createClient({
  apiKey: process.env.AGENCY_CRM_PUBLISHABLE_KEY ?? '',
  baseUrl: process.env.AGENCY_CRM_URL ?? 'http://127.0.0.1:3000',
});

// `for await` walks every page (48 properties per request here, the portal's maximum).
const properties = [];
for await (const property of client.properties.list({ sortBy: 'price', sortOrder: 'asc', pageSize: 48 })) {
  properties.push(property);
  console.log(
    `${property.code}  ${property.title}  ${property.price} ${property.currency}  ${property.city}`,
  );
}
console.log(`${properties.length} properties`);

// The contact form. Errors carry the API's code, message and the fields that failed.
try {
  const lead = await client.leads.create({
    firstName: process.env.LEAD_FIRST_NAME ?? 'Lucía',
    phone: process.env.LEAD_PHONE ?? '+34 612 345 678',
    email: process.env.LEAD_EMAIL ?? 'lucia@example.com',
    message: 'Is it still available?',
    propertyId: properties[0]?.id,
  });
  console.log(`lead captured: success=${lead.data.success} (request ${lead.lastResponse.requestId})`);
} catch (error) {
  if (!(error instanceof ApiError)) throw error;
  console.error(`lead refused: ${error.status} ${error.code}: ${error.message} (request ${error.requestId})`);
  for (const detail of error.details) console.error(`  ${detail.field}: ${detail.message}`);
  process.exitCode = 1;
}
