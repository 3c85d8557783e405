/** Properties, through the admin API. */
import type { FastifyInstance } from 'fastify';
import { admin, expectStatus } from '../http.ts';

let propertySequence = 0;

/**
 * A property through the admin API (ACTIVE and published unless overridden). Returns the admin
 * view (with internalNotes and customFields).
 */
export async function createProperty(
  app: FastifyInstance,
  organizationId: string,
  overrides: Record<string, unknown> = {},
): Promise<{ id: string; code: string } & Record<string, unknown>> {
  propertySequence += 1;
  const response = await admin(app, 'POST', `/admin/v1/organizations/${organizationId}/properties`, {
    code: `P-${Date.now().toString(36)}-${propertySequence}`,
    title: `Bright apartment ${propertySequence}`,
    description: 'Two bedrooms, close to the beach.',
    transactionType: 'SALE',
    type: 'APARTMENT',
    price: 250000,
    currency: 'EUR',
    city: 'Málaga',
    neighborhood: 'Centro',
    address: 'Calle Larios 1',
    zipCode: '29005',
    coordinates: { latitude: 36.72016, longitude: -4.42034 },
    bedrooms: 2,
    bathrooms: 1,
    area: 85,
    amenities: ['elevator'],
    photos: [{ url: 'https://images.example.com/p1.jpg', caption: 'Living room' }],
    ...overrides,
  });
  return expectStatus(response, 201).data;
}
