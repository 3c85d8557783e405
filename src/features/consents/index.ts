// A contact's consent per channel (issue 21, docs/consent.md): the v1 routes. The history rows and the
// one write every path takes live in contacts (contacts.consent.ts): the opt-out flag, an inbound STOP
// and portal forms record consent too, and those features reach contacts, not this one.
import { consentsPersonalData } from './consents.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import { consentsRoutes } from './consents.routes.ts';
import { consentsSchemas } from './consents.schema.ts';

export { getContactConsents, setContactConsent } from './consents.service.ts';

/** The consents feature's manifest (src/features.ts lists it). */
export const consentsFeature = defineFeature({
  name: 'consents',
  personalData: consentsPersonalData,
  schemas: consentsSchemas,
  routes: [consentsRoutes],
});
