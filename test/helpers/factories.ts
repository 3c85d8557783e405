/**
 * The test data factories, one per resource (test/helpers/factories/): tenants (an organization with
 * its keys, more keys, a messaging set-up), organizations and keys, contacts and phone numbers,
 * agents and properties. Test files import them from here.
 */
export * from './factories/agents.ts';
export * from './factories/contacts.ts';
export * from './factories/organizations.ts';
export * from './factories/properties.ts';
export * from './factories/tenants.ts';
