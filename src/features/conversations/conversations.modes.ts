// Messaging modes (SPEC.md "Messaging modes") and template rendering: what may be sent now.
import type { ConversationRow, MessageTemplateRow } from '../../db/schema.ts';
import type { AppError } from '../../platform/errors/errors.ts';
import { Errors } from '../../platform/errors/errors.ts';
import { type Contact } from '../contacts/index.ts';
import { MAX_MESSAGE_LENGTH, type MessagingMode } from './conversations.schema.ts';
import { fillTemplate, templateVariables } from '../messaging-setup/index.ts';

/** SPEC.md "Limits": the service window after the contact's last inbound message. */
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

export const iso = (value: Date | null) => (value === null ? null : value.toISOString());

// ---------------------------------------------------------------------------------------------
// Messaging modes (SPEC.md "Messaging modes"): BLOCKED > HUMAN_AGENT_ONLY > FREE_FORM > TEMPLATE_ONLY.

interface ModeInput {
  contact: Pick<Contact, 'id' | 'phone' | 'optedOut'>;
  conversation: Pick<ConversationRow, 'mode' | 'blocked' | 'lastInboundAt'> | null;
}

interface ModeResolution {
  mode: MessagingMode;
  windowExpiresAt: Date | null;
  /** Why, in words, for the 409's message. */
  why: string;
}

/** What the API may send to a contact at `now`, and when the service window ends (or ended). */
export function resolveMessagingMode({ contact, conversation }: ModeInput, now: Date): ModeResolution {
  const lastInbound = conversation?.lastInboundAt ?? null;
  const windowExpiresAt = lastInbound ? new Date(lastInbound.getTime() + SERVICE_WINDOW_MS) : null;
  if (contact.optedOut) {
    return { mode: 'BLOCKED', windowExpiresAt, why: `Contact ${contact.id} opted out of messages` };
  }
  if (conversation?.blocked) {
    return { mode: 'BLOCKED', windowExpiresAt, why: `The number of contact ${contact.id} is blocked` };
  }
  if (!contact.phone) {
    return { mode: 'BLOCKED', windowExpiresAt, why: `Contact ${contact.id} has no phone number` };
  }
  if (conversation?.mode === 'HUMAN') {
    return {
      mode: 'HUMAN_AGENT_ONLY',
      windowExpiresAt,
      why: 'A person has taken over this conversation in the inbox; the API does not send until it is handed back',
    };
  }
  if (windowExpiresAt && now.getTime() < windowExpiresAt.getTime()) {
    return { mode: 'FREE_FORM', windowExpiresAt, why: 'The 24-hour service window is open' };
  }
  return {
    mode: 'TEMPLATE_ONLY',
    windowExpiresAt,
    why: windowExpiresAt
      ? `The 24-hour service window closed at ${windowExpiresAt.toISOString()}`
      : 'The contact has never written, so the 24-hour service window has not opened',
  };
}

export function conflict(resolution: ModeResolution, message: string, withWindow: boolean): AppError {
  const extra: Record<string, unknown> = { reason: resolution.mode };
  if (withWindow) extra.windowExpiresAt = iso(resolution.windowExpiresAt);
  return Errors.conflict(message, extra);
}

// ---------------------------------------------------------------------------------------------
// Templates: `{{name}}` variables.

/**
 * The template's body with its variables filled in: a 400 naming `body.variables.<name>` for a
 * missing value or a value the template has no place for.
 */
export function renderTemplate(
  template: Pick<MessageTemplateRow, 'name' | 'body'>,
  values: Record<string, string>,
) {
  const names = templateVariables(template.body);
  for (const name of names) {
    if (values[name] === undefined) {
      throw Errors.invalidField(`body.variables.${name}`, `is required by template ${template.name}`);
    }
  }
  for (const name of Object.keys(values)) {
    if (!names.includes(name)) {
      throw Errors.invalidField(`body.variables.${name}`, `is not a variable of template ${template.name}`);
    }
  }
  const rendered = fillTemplate(template.body, values);
  if (rendered.length > MAX_MESSAGE_LENGTH) {
    throw Errors.invalidField(
      'body.variables',
      `make the message longer than ${MAX_MESSAGE_LENGTH} characters`,
    );
  }
  return rendered;
}
