import { BENCH_ADMIN_TOKEN } from './protocol.ts';

/** A fetch that insists on one status code and answers the parsed body and the raw text. */
export async function request<T>(
  url: string,
  init: RequestInit,
  expected: number,
): Promise<{ body: T; text: string; headers: Headers }> {
  const response = await fetch(url, init);
  const text = await response.text();
  if (response.status !== expected) {
    throw new Error(`${init.method ?? 'GET'} ${url}: expected ${expected}, got ${response.status}: ${text}`);
  }
  return { body: JSON.parse(text) as T, text, headers: response.headers };
}

/** The admin API of a service started by the benchmark (bearer BENCH_ADMIN_TOKEN). */
export function adminClient(serviceUrl: string) {
  const call = <T>(method: string, path: string, body: unknown, expected: number) =>
    request<{ data: T }>(
      `${serviceUrl}${path}`,
      {
        method,
        headers: {
          authorization: `Bearer ${BENCH_ADMIN_TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      },
      expected,
    ).then(({ body: answer }) => answer.data);
  return {
    get: <T>(path: string) => call<T>('GET', path, undefined, 200),
    post: <T>(path: string, body: unknown) => call<T>('POST', path, body, 201),
    patch: <T>(path: string, body: unknown) => call<T>('PATCH', path, body, 200),
  };
}

export interface BenchOrganization {
  id: string;
  name: string;
  testOrganizationId: string | null;
  effectiveWriteLimitPerMinute: number;
}

export interface BenchKey {
  key: string;
  organizationId: string;
  rateLimitPerMinute: number;
  writeLimitPerMinute: number;
}

/**
 * A publishable key of `organizationId` with raised limits; throws when the service did not apply
 * them (a silently capped limit would show up as 429s in the middle of a run).
 */
export async function publishableKey(
  admin: ReturnType<typeof adminClient>,
  organizationId: string,
  limits: { rateLimitPerMinute: number; writeLimitPerMinute?: number },
  name = 'bench',
): Promise<BenchKey> {
  const created = await admin.post<BenchKey>(`/admin/v1/organizations/${organizationId}/api-keys`, {
    type: 'publishable',
    name,
    ...limits,
  });
  if (created.rateLimitPerMinute !== limits.rateLimitPerMinute)
    throw new Error(`key limit not raised: rateLimitPerMinute is ${created.rateLimitPerMinute}`);
  if (limits.writeLimitPerMinute !== undefined && created.writeLimitPerMinute !== limits.writeLimitPerMinute)
    throw new Error(`key write limit not raised: writeLimitPerMinute is ${created.writeLimitPerMinute}`);
  return { ...created, organizationId };
}
