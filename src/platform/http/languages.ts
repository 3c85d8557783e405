// The language a portal answer is served in (issue 25, decision 0231): `lang` in the query, else the
// best of Accept-Language (RFC 9110 12.5.4, `negotiator`), among the languages the organization serves;
// its default language otherwise. Answers name it in Content-Language and vary on Accept-Language.
import type { FastifyRequest } from 'fastify';
import Negotiator from 'negotiator';

/** ISO 639-1, lower case: what `lang`, translations and the organization's languages hold. */
export const LANGUAGE_PATTERN = '^[a-z]{2}$';

export interface ServedLanguages {
  defaultLanguage: string;
  otherLanguages: readonly string[];
}

/** The organization's languages, its default first. */
export function languagesOf(organization: ServedLanguages): string[] {
  return [organization.defaultLanguage, ...organization.otherLanguages];
}

/** The language to serve `request` in: a served `lang`, else Accept-Language's best served one, else the default. */
export function servedLanguage(request: FastifyRequest, organization: ServedLanguages): string {
  const asked = (request.query as { lang?: unknown } | undefined)?.lang;
  const served = languagesOf(organization);
  if (typeof asked === 'string' && served.includes(asked)) return asked;
  const header = request.headers['accept-language'];
  if (typeof asked !== 'string' && typeof header === 'string' && header !== '') {
    const best = new Negotiator({ headers: { 'accept-language': header } }).language(served);
    if (best !== undefined) return best;
  }
  return organization.defaultLanguage;
}

/**
 * The language a visitor's browser asks for first (Accept-Language's best entry, as ISO 639-1), or
 * null without one: what a portal form records as a new contact's preferred language (issue 41).
 */
export function browserLanguage(request: FastifyRequest): string | null {
  const header = request.headers['accept-language'];
  if (typeof header !== 'string' || header === '') return null;
  const [best] = new Negotiator({ headers: { 'accept-language': header } }).languages();
  const primary = best?.split('-')[0]?.toLowerCase();
  return primary !== undefined && new RegExp(LANGUAGE_PATTERN).test(primary) ? primary : null;
}
