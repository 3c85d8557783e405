/**
 * POST /v1/leads as the portal sends it: publishable keys, every request a person never seen before
 * (a phone number not sent before), half of them about a published listing. Used by the `leads`,
 * `fanout` and `scaling` scenarios.
 */
import type { AutocannonRequest } from 'autocannon';

let sent = Math.floor(Math.random() * 40_000_000);
/** A Spanish mobile number (+34 65..., outside the generated contacts' range), new on every call. */
export const nextPhone = () => `+346${50_000_000 + (sent++ % 40_000_000)}`;

export interface LeadBody {
  key: string;
  body: Record<string, unknown>;
}

/** Four variants per key (sale and rent, with and without a listing of `listings`), without the phone. */
export function leadBodies(
  keys: readonly { key: string; organizationId: string }[],
  listings: Map<string, string[]>,
): LeadBody[] {
  const bodies: LeadBody[] = [];
  for (let variant = 0; variant < 4; variant++) {
    for (const key of keys) {
      const propertyId = variant % 2 === 0 ? listings.get(key.organizationId)?.[variant] : undefined;
      bodies.push({
        key: key.key,
        body: {
          firstName: 'Visitante',
          lastName: 'Prueba',
          message: '¿Sigue disponible? Me gustaría visitarlo esta semana.',
          interestedIn: variant < 2 ? 'SALE' : 'RENT',
          utmSource: 'bench',
          utmCampaign: `variant-${variant}`,
          ...(propertyId === undefined ? {} : { propertyId }),
        },
      });
    }
  }
  return bodies;
}

/** autocannon requests of `bodies`, each sent with a new phone number. */
export function leadRequests(bodies: readonly LeadBody[]): AutocannonRequest[] {
  return bodies.map((entry) => ({
    method: 'POST',
    path: '/v1/leads',
    headers: { 'x-api-key': entry.key, 'content-type': 'application/json' },
    body: '{}',
    setupRequest: (req) => ({ ...req, body: JSON.stringify({ ...entry.body, phone: nextPhone() }) }),
  }));
}
