// Online booking with agents: bookable agents, availability, booking a slot; and the v1 appointment
// writes, which check slots with the same rules (docs/decisions/0199).
import { defineFeature } from '../../platform/features/manifest.ts';
import { bookingAppointmentsRoutes } from './booking.appointments.routes.ts';
import { bookingAppointmentsSchemas } from './booking.appointments.schema.ts';
import { visitorLinkCredential } from './booking.manage.ts';
import { bookingManageRoutes } from './booking.manage.routes.ts';
import { bookingPageRoutes } from './booking.page.routes.ts';
import { bookingManageSchemas } from './booking.manage.schema.ts';
import { bookingRoutes } from './booking.routes.ts';
import { bookingSchemas } from './booking.schema.ts';

export { CalendarDate, Time } from './booking.schema.ts';
export { createApiAppointmentInTx } from './booking.appointments.service.ts';
export { getAvailability } from './booking.service.ts';

/** The booking feature's manifest (src/features.ts lists it). */
export const bookingFeature = defineFeature({
  name: 'booking',
  scopes: [{ name: 'booking:write', description: 'books visits with agents online', publishable: true }],
  tags: [
    { name: 'Booking', description: 'Online booking with an agent: bookable agents, free slots, a booking' },
  ],
  examples: {
    schemaIds: {
      BookingAgent: 'agt',
    },
    fields: {
      slug: 'lucia-garcia',
      notes: 'Prefers afternoon visits.',
      slots: '11:00',
    },
  },
  schemas: [...bookingSchemas, ...bookingManageSchemas, ...bookingAppointmentsSchemas],
  routes: [bookingRoutes, bookingManageRoutes, bookingPageRoutes, bookingAppointmentsRoutes],
  credentials: ({ secrets }) => [visitorLinkCredential(secrets)],
});
