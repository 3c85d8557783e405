import type { AutocannonRequest } from 'autocannon';
import { adminClient, publishableKey, request, type BenchOrganization } from './admin-client.ts';
import type { ChildServer } from './child.ts';

/** Publishable keys of the listing scenarios are limited this high: the limit never answers. */
export const KEY_LIMIT_PER_MINUTE = 100_000;

/** An organization with `count` published properties and `keys` publishable keys; their requests. */
export async function seedListing(
  service: ChildServer,
  path: string,
  count: number,
  keys: number,
): Promise<AutocannonRequest[]> {
  const admin = adminClient(service.url);
  const organization = await admin.post<BenchOrganization>('/admin/v1/organizations', {
    name: 'Bench agency',
    plan: 'ENTERPRISE',
  });
  for (let i = 1; i <= count; i++) {
    await admin.post(`/admin/v1/organizations/${organization.id}/properties`, {
      code: `RL-${i}`,
      title: `Bright apartment ${i}`,
      description: 'Two bedrooms, close to the beach.',
      transactionType: 'SALE',
      type: 'APARTMENT',
      price: 200_000 + i * 1_000,
      currency: 'EUR',
      city: 'Málaga',
      bedrooms: 2,
      bathrooms: 1,
      area: 85,
    });
  }
  const requests: AutocannonRequest[] = [];
  for (let i = 0; i < keys; i++) {
    const key = await publishableKey(
      admin,
      organization.id,
      { rateLimitPerMinute: KEY_LIMIT_PER_MINUTE },
      `bench ${i}`,
    );
    requests.push({ method: 'GET', path: path, headers: { 'x-api-key': key.key } });
  }
  // A real answer before load: a 4xx here would make every run a run of errors.
  await request(`${service.url}${path}`, { headers: requests[0]?.headers as Record<string, string> }, 200);
  return requests;
}
