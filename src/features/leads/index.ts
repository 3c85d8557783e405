// Lead capture and visit requests from the portal, read back and decided through v1.
import { leadsPersonalData } from './leads.personal-data.ts';
import { defineFeature } from '../../platform/features/manifest.ts';
import {
  LeadSubmitted,
  VisitRequestConfirmed,
  VisitRequestDeclined,
  VisitRequested,
} from './leads.events.ts';
import { leadsRoutes } from './leads.routes.ts';
import { leadsSchemas } from './leads.schema.ts';
import { leadsVisitsRoutes } from './leads.visits.routes.ts';
import { leadsVisitsSchemas } from './leads.visits.schema.ts';

export { captureLead, requestVisit } from './leads.service.ts';
export { confirmVisitRequest, declineVisitRequest } from './leads.visits.service.ts';
export { findVisitRequest } from './leads.read.ts';

/** The leads feature's manifest (src/features.ts lists it). */
export const leadsFeature = defineFeature({
  name: 'leads',
  personalData: leadsPersonalData,
  scopes: [
    { name: 'leads:write', description: 'sends leads and visit requests from the portal', publishable: true },
    { name: 'leads:read', description: 'reads visit requests and confirms or declines them' },
  ],
  examples: {
    ids: {
      propertyId: 'prop',
      appointmentId: 'apt',
      visitRequestId: 'vr',
    },
    fields: {
      'CreateLeadBody.message': 'Is it still available? I could visit on Saturday.',
      'ScheduleVisitBody.message': 'Could we see it before noon?',
      date: '2027-03-29',
      utmSource: 'google',
      utmMedium: 'cpc',
      utmCampaign: 'spring-sale',
      utmContent: 'banner-a',
      referrer: 'https://www.google.com/',
      reason: 'TEMPLATE_ONLY',
    },
  },
  tags: [{ name: 'Leads', description: 'Lead capture and visit requests from the portal' }],
  schemas: [...leadsSchemas, ...leadsVisitsSchemas],
  routes: [leadsRoutes, leadsVisitsRoutes],
  events: [LeadSubmitted, VisitRequested, VisitRequestConfirmed, VisitRequestDeclined],
});
