// A visitor email's one-click unsubscribe link (issue 41, RFC 8058, decision 0269): a token the service
// signs per organization and contact, `<organization>.<contact>.<key id>.<signature>`, nothing stored.
// The worker puts its URL in `List-Unsubscribe` (with `List-Unsubscribe-Post: List-Unsubscribe=One-Click`)
// and in the footer; the routes of email.unsubscribe.routes.ts open it as a URL credential.
import type { Database } from '../../db/database.ts';
import type { TokenCredentialResolver } from '../../platform/auth/credentials.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { Errors } from '../../platform/errors/errors.ts';
import type { Actor } from '../../platform/events/catalog.ts';
import { isId } from '../../platform/ids/ids.ts';
import { isContactOf } from '../contacts/index.ts';

/** Its own signing context: a manage link's signature is no unsubscribe token, and back. */
const CONTEXT = 'email-unsubscribe';

/** Who the consent statement and its event name: the person, through a link, no key (as a visit link). */
export const UNSUBSCRIBER: Actor = { kind: 'API', userId: null };

/** The token of a contact's unsubscribe link. */
export function unsubscribeToken(secrets: SecretBox, organizationId: string, contactId: string): string {
  const subject = `${organizationId}.${contactId}`;
  return `${subject}.${secrets.sign(subject, CONTEXT)}`;
}

/** A contact's unsubscribe URL (`List-Unsubscribe` and the footer of every visitor email). */
export function unsubscribeUrl(
  secrets: SecretBox,
  origin: string,
  organizationId: string,
  contactId: string,
): string {
  return `${origin}/email/unsubscribe/${unsubscribeToken(secrets, organizationId, contactId)}`;
}

/** The organization and contact a token names; null for anything this service did not sign. */
export function openUnsubscribeToken(
  secrets: SecretBox,
  token: string,
): { organizationId: string; contactId: string } | null {
  const [organizationId = '', contactId = '', keyId = '', tag = '', ...rest] = token.split('.');
  const signed =
    rest.length === 0 &&
    isId(organizationId, 'org') &&
    isId(contactId, 'ct') &&
    secrets.verify(`${keyId}.${tag}`, `${organizationId}.${contactId}`, CONTEXT);
  return signed ? { organizationId, contactId } : null;
}

/** The one 404 of a token not ours, and of a contact erased or deleted since. */
export const unsubscribeLinkNotFound = () => Errors.notFound('Unsubscribe link', 'this link');

/**
 * The unsubscribe link as a credential (manifest `credentials`): the organization (its state checked at
 * the edge as for any credential) and the contact (the credential's id). It grants no scope: its routes
 * do one thing. Valid for as long as the contact exists (the law wants an unsubscribe link to keep
 * working): a contact erased or deleted since makes it a 404 at the door, as a replaced feed URL.
 */
export function unsubscribeCredential(db: Database, secrets: SecretBox): TokenCredentialResolver {
  return {
    kind: 'unsubscribe_link',
    scopes: [],
    // Per link, as a visit link: a person, or a mail client's one POST, never a crawler's pace.
    limits: { requestsPerMinute: 60, writesPerMinute: 10 },
    actor: UNSUBSCRIBER,
    notFound: unsubscribeLinkNotFound,
    async resolve(token) {
      const opened = openUnsubscribeToken(secrets, token);
      if (!opened) return null;
      const { organizationId, contactId } = opened;
      // On the primary, as the calendar URL's lookup: a link sent a second after the contact was made works.
      const exists = await db.systemTx((tx) => isContactOf(tx, organizationId, contactId));
      return exists ? { organizationId, id: contactId, agentId: null } : null;
    },
  };
}
