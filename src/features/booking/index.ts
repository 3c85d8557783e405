// Online booking with agents: bookable agents, availability, booking a slot.
import { defineFeature } from '../../platform/features/manifest.ts';
import { bookingRoutes } from './booking.routes.ts';
import { bookingSchemas } from './booking.schema.ts';

/** The booking feature's manifest (src/features.ts lists it). */
export const bookingFeature = defineFeature({
  name: 'booking',
  schemas: bookingSchemas,
  routes: [bookingRoutes],
});
