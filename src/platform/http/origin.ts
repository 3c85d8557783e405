import type { FastifyRequest } from 'fastify';

/**
 * The origin the links a service hands out point at (feeds, photos, manage links, console): PUBLIC_URL,
 * else the request's own (behind TRUST_PROXY, the forwarded one).
 */
export function originOf(
  request: Pick<FastifyRequest, 'protocol' | 'host'>,
  publicUrl: string | undefined,
): string {
  return publicUrl ?? `${request.protocol}://${request.host}`;
}
