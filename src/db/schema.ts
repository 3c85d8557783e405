/**
 * Table definitions, one file per area under schema/ (drizzle-kit reads this file to generate
 * db/migrations). The glossary of each area heads its file; the tenant model is in schema/platform.ts.
 */
export * from './schema/platform.ts';
export * from './schema/portal.ts';
export * from './schema/contacts.ts';
export * from './schema/crm.ts';
export * from './schema/messaging.ts';
export * from './schema/webhooks.ts';
export * from './schema/console.ts';
export * from './schema/calendar.ts';
export * from './schema/email.ts';
