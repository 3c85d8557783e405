import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { admin, expectStatus } from '../../helpers/http.ts';

/** The origin the console pages are served from in `app.inject` (Host localhost:80). */
export const ORIGIN = 'http://localhost:80';

/** A console client over `app.inject`: mint a link, open it as a browser would, call the console API. */
export function consoleClient(app: FastifyInstance) {
  async function mintLink(orgId: string): Promise<{ url: string; expiresAt: string }> {
    return expectStatus(await admin(app, 'POST', `/admin/v1/organizations/${orgId}/console-links`), 201).data;
  }

  /** Opens a link as a browser would. */
  async function open(url: string) {
    const { pathname, search } = new URL(url);
    return app.inject({ method: 'GET', url: `${pathname}${search}`, headers: { host: 'localhost:80' } });
  }

  function consoleCall(
    cookie: string | null,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    options: { body?: unknown; headers?: Record<string, string> } = {},
  ) {
    return app.inject({
      method,
      url,
      headers: { host: 'localhost:80', ...(cookie ? { cookie } : {}), ...(options.headers ?? {}) },
      ...(options.body !== undefined ? { payload: options.body as Record<string, unknown> } : {}),
    });
  }

  /** A signed-in session: its cookie (name=value) and CSRF token. */
  async function signIn(orgId: string) {
    const response = await open((await mintLink(orgId)).url);
    expect(response.statusCode).toBe(303);
    const cookie = String(response.headers['set-cookie']).split(';')[0] as string;
    const session = await consoleCall(cookie, 'GET', '/console/api/session');
    return { cookie, csrf: session.json().csrfToken as string };
  }

  /** A signed-in session's calls, changes carrying Origin and the CSRF token. */
  function as(session: { cookie: string; csrf: string }) {
    return (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
      consoleCall(session.cookie, method, url, {
        body,
        headers: method === 'GET' ? {} : { origin: ORIGIN, 'x-csrf-token': session.csrf },
      });
  }

  return { mintLink, open, consoleCall, signIn, as };
}
