// The visitor's manage link of an appointment (issue 26, decision 0237): a token the service signs,
// `<organization>.<appointment>.<key id>.<signature>`, no key needed; the booking answers it, the
// reminders carry it, the booking's self-service routes open it.
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import { isId } from '../../platform/ids/ids.ts';

const CONTEXT = 'visit-manage';

/** The token of an appointment's manage link. */
export function manageToken(secrets: SecretBox, organizationId: string, appointmentId: string): string {
  const subject = `${organizationId}.${appointmentId}`;
  return `${subject}.${secrets.sign(subject, CONTEXT)}`;
}

/** The visitor's page of an appointment (served at /visits/{token}). */
export function manageUrl(
  secrets: SecretBox,
  origin: string,
  organizationId: string,
  appointmentId: string,
): string {
  return `${origin}/visits/${manageToken(secrets, organizationId, appointmentId)}`;
}

/** The organization and appointment a token names; null for anything this service did not sign. */
export function openManageToken(
  secrets: SecretBox,
  token: string,
): { organizationId: string; appointmentId: string } | null {
  const [organizationId = '', appointmentId = '', keyId = '', tag = '', ...rest] = token.split('.');
  const signed =
    rest.length === 0 &&
    isId(organizationId, 'org') &&
    isId(appointmentId, 'apt') &&
    secrets.verify(`${keyId}.${tag}`, `${organizationId}.${appointmentId}`, CONTEXT);
  return signed ? { organizationId, appointmentId } : null;
}
