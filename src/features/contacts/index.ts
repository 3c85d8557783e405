// Contacts: the v1 API, the back office, portal-form upserts and the activity score.
import { contactsPersonalData } from './contacts.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { ContactConsentChanged, ContactCreated, ContactDeleted, ContactUpdated } from './contacts.events.ts';
import { contactsMcpTools, contactsMcpCounts } from './contacts.mcp.ts';
import { contactsRoutes } from './contacts.routes.ts';
import { contactsSchemas } from './contacts.schema.ts';

export {
  CONSENT_CHANNELS,
  CONSENT_HISTORY_LIMIT,
  CONSENT_SOURCES,
  CONSENT_STATUSES,
  FormConsentsSchema,
  readContactConsents,
  recordConsent,
  recordFormConsents,
  type ConsentChannel,
  type ConsentHistoryItem,
  type ConsentInput,
  type ConsentState,
  type ConsentStatus,
  type ContactConsents,
  type FormConsents,
} from './contacts.consent.ts';
export { exampleContact } from './contacts.events.ts';
export { formContactSql, type FormContactInput, type FormContactSql } from './contacts.form-statement.ts';
export {
  CONTACT_STATUSES,
  ContactResponseSchema,
  ContactSchema,
  PortalPersonFields,
  type Contact,
  type ContactSource,
  type ContactType,
} from './contacts.schema.ts';
export { getContact, listContacts, recomputeContactScore } from './contacts.service.ts';
export {
  findContactByPhone,
  findContactInTx,
  isContactOf,
  optOutContact,
  upsertPortalContact,
  type ContactMatchKey,
} from './contacts.upsert.ts';
export { createContact, lockContact, removeContactInTx } from './contacts.write.ts';
export { absorbContactFields } from './contacts.absorb.ts';
export { handoverChanges, redacted, type ContactHandover } from './contacts.handover.ts';

/** The contacts feature's manifest (src/features.ts lists it). */
export const contactsFeature = defineFeature({
  name: 'contacts',
  personalData: contactsPersonalData,
  scopes: [
    { name: 'contacts:read', description: 'reads contacts and their consents, notes and timeline' },
    {
      name: 'contacts:write',
      description: 'creates, changes, merges and erases contacts (support approval)',
      approval: true,
    },
  ],
  tags: [
    {
      name: 'Contacts',
      description: 'The CRM contacts: lists with filters, one contact, creation and updates',
    },
    {
      name: 'Admin: contacts',
      description: 'Contacts as the back office sees them, with internal fields and deletion (admin)',
    },
  ],
  examples: {
    ids: {
      ownerId: 'agt',
    },
    fields: {
      'Contact.code': 'CT-000042',
      code: 'CT-000042',
      phone: '+34600111222',
      firstName: 'Lucía',
      lastName: 'García',
      fullName: 'Lucía García',
      currency: 'EUR',
      preferredCity: 'Málaga',
      preferredLanguage: 'es',
      externalId: 'crm-7781',
      tags: 'vip',
      error: 'connect ECONNREFUSED 203.0.113.7:443',
      field: 'body.phone',
    },
  },
  schemas: contactsSchemas,
  routes: [contactsRoutes],
  mcpTools: contactsMcpTools,
  mcpCounts: contactsMcpCounts,
  events: [ContactCreated, ContactUpdated, ContactDeleted, ContactConsentChanged],
});
