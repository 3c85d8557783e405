/**
 * The demo agency's conversations: an active sandbox number, approved, pending and rejected
 * templates, and contacts whose conversations are open, closed, opted out and taken over. Made
 * through the feature's own services (so message events exist for webhook samples), always with
 * the sandbox, at times relative to the seed.
 */
import type { Database } from '../../db/database.ts';
import { operatorCallerOf } from '../../platform/auth/credentials.ts';
import { createMessageTemplate, createMessagingNumber } from '../messaging-setup/index.ts';
import {
  type MessagingContext,
  receiveMessage,
  sandboxProvider,
  sendMessage,
  updateConversation,
} from '../conversations/index.ts';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

const at = (time: number): MessagingContext => ({ provider: sandboxProvider, clock: () => new Date(time) });

/** Needs at least six contacts with phones (the CRM seed's first ones). */
export async function seedDemoConversations(
  db: Database,
  organizationId: string,
  contactIds: readonly string[],
  now = Date.now(),
): Promise<{ reminderTemplateId: string }> {
  const operator = await operatorCallerOf(db, organizationId);
  const contact = (i: number) => {
    const id = contactIds[i];
    if (!id) throw new Error(`the demo conversations need contact #${i}`);
    return id;
  };
  await createMessagingNumber(db, operator, { phone: '+34951000111', providerNumberId: 'demo-number' });
  const followUp = await createMessageTemplate(db, operator, {
    name: 'visit_followup',
    language: 'es',
    category: 'MARKETING',
    body: 'Hola {{name}}, el inmueble de {{street}} sigue disponible. ¿Le gustaría visitarlo esta semana?',
    status: 'APPROVED',
  });
  // The appointment reminders' template (docs/booking.md "Reminders"): its variables are a reminder's.
  const reminder = await createMessageTemplate(db, operator, {
    name: 'visit_reminder',
    language: 'es',
    category: 'UTILITY',
    body: 'Hola {{firstName}}, le recordamos su visita el {{date}} a las {{time}} con {{agentName}}. Responda a este mensaje si necesita cambiarla.',
    status: 'APPROVED',
  });
  await createMessageTemplate(db, operator, {
    name: 'price_drop',
    language: 'es',
    category: 'MARKETING',
    body: 'Buenas noticias, {{name}}: el precio de {{property}} ha bajado a {{price}}.',
    status: 'PENDING',
  });
  await createMessageTemplate(db, operator, {
    name: 'login_code',
    language: 'en',
    category: 'AUTHENTICATION',
    body: 'Your code is {{code}}.',
    status: 'REJECTED',
  });

  // Open windows: the contact wrote two hours ago and got a free-text answer.
  for (const i of [0, 1]) {
    await receiveMessage(
      db,
      at(now - 2 * HOUR),
      operator,
      contact(i),
      'Hola, ¿sigue disponible el piso de la calle Larios?',
    );
    await sendMessage(db, at(now - 2 * HOUR + 10 * MINUTE), operator, contact(i), {
      body: 'Sí, sigue disponible. ¿Le viene bien visitarlo mañana por la tarde?',
    });
  }
  // Closed windows: a conversation three days ago, then a template (the only way back in).
  for (const i of [2, 3]) {
    await receiveMessage(db, at(now - 3 * DAY), operator, contact(i), '¿Aceptan mascotas en el alquiler?');
    await sendMessage(db, at(now - 3 * DAY + 15 * MINUTE), operator, contact(i), {
      body: 'Sí, el propietario acepta mascotas pequeñas.',
    });
    await sendMessage(db, at(now - DAY), operator, contact(i), {
      templateId: followUp.id,
      variables: { name: 'cliente', street: 'Calle Larios' },
    });
  }
  // Opted out: the contact answered BAJA.
  await receiveMessage(db, at(now - 5 * DAY), operator, contact(4), 'Hola');
  await receiveMessage(db, at(now - 4 * DAY), operator, contact(4), 'BAJA');
  // Taken over: a person answers this one in the inbox.
  await receiveMessage(
    db,
    at(now - 30 * MINUTE),
    operator,
    contact(5),
    'Quiero negociar el precio, ¿me llaman?',
  );
  await updateConversation(db, at(now), operator, contact(5), { mode: 'HUMAN' });
  return { reminderTemplateId: reminder.id };
}
