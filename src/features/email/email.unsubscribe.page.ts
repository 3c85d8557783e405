// The page of an unsubscribe link (decision 0269): a question with one button (GET changes nothing:
// mail scanners open links), then the answer (POST). Small server-made HTML in the organization's
// language, no script, its one style allowed by hash.
import { createHash } from 'node:crypto';
import { EMAIL_LANGUAGES, type EmailLanguage } from './email.kinds.ts';

interface Words {
  title: string;
  question: (agency: string) => string;
  effect: (agency: string) => string;
  button: string;
  done: (agency: string) => string;
  doneDetail: string;
}

const WORDS: Record<EmailLanguage, Words> = {
  en: {
    title: 'Unsubscribe',
    question: (agency) => `Stop emails from ${agency}?`,
    effect: (agency) =>
      `${agency} will send you no more emails, not even the confirmations, changes and reminders of your visits.`,
    button: 'Unsubscribe',
    done: (agency) => `You will get no more emails from ${agency}.`,
    doneDetail: 'To hear from them again by email, tell the agency.',
  },
  es: {
    title: 'Darse de baja',
    question: (agency) => `¿Dejar de recibir correos de ${agency}?`,
    effect: (agency) =>
      `${agency} no te enviará más correos, ni siquiera las confirmaciones, cambios y recordatorios de tus visitas.`,
    button: 'Darme de baja',
    done: (agency) => `No recibirás más correos de ${agency}.`,
    doneDetail: 'Si quieres volver a recibirlos, díselo a la agencia.',
  },
  pt: {
    title: 'Cancelar a subscrição',
    question: (agency) => `Deixar de receber emails de ${agency}?`,
    effect: (agency) =>
      `${agency} não lhe enviará mais emails, nem as confirmações, alterações e lembretes das suas visitas.`,
    button: 'Cancelar a subscrição',
    done: (agency) => `Não receberá mais emails de ${agency}.`,
    doneDetail: 'Para voltar a recebê-los, diga-o à agência.',
  },
};

const STYLE =
  'body{font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem;color:#1f2937;line-height:1.5}' +
  'button{font:inherit;padding:.6rem 1.2rem;border:0;border-radius:.4rem;background:#1f2937;color:#fff;cursor:pointer}';

/**
 * Headers of the page: nothing from elsewhere, no script, its form posts only here, never framed or
 * cached, and the link (a credential) never leaves as a referrer.
 */
export const UNSUBSCRIBE_PAGE_HEADERS = {
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'content-security-policy': [
    "default-src 'none'",
    `style-src 'sha256-${createHash('sha256').update(STYLE).digest('base64')}'`,
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'referrer-policy': 'no-referrer',
};

const escape = (value: string) =>
  value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');

/** The page's language: the organization's when the page has it, else English. */
export function pageLanguage(language: string): EmailLanguage {
  return (EMAIL_LANGUAGES as readonly string[]).includes(language) ? (language as EmailLanguage) : 'en';
}

/** The page: the question and its button, or (`unsubscribed`) the answer. */
export function unsubscribePage(options: {
  language: EmailLanguage;
  agency: string;
  unsubscribed: boolean;
}): string {
  const words = WORDS[options.language];
  const agency = escape(options.agency);
  const body = options.unsubscribed
    ? `<h1>${escape(words.title)}</h1><p>${words.done(agency)}</p><p>${escape(words.doneDetail)}</p>`
    : `<h1>${words.question(agency)}</h1><p>${words.effect(agency)}</p>` +
      `<form method="post"><button type="submit">${escape(words.button)}</button></form>`;
  return (
    `<!doctype html><html lang="${options.language}"><head><meta charset="utf-8">` +
    '<meta name="viewport" content="width=device-width, initial-scale=1"><meta name="robots" content="noindex">' +
    `<title>${escape(words.title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`
  );
}
