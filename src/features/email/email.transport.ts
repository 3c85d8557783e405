// Where emails go (decision 0267): SMTP through Nodemailer (SMTP_URL), or the sandbox (a Nodemailer
// stream transport: the whole message is built, checked and dropped; the email log keeps what it
// said). Test mode always uses the sandbox; EMAIL_TRANSPORT=off sends nothing.
import nodemailer from 'nodemailer';
import type { Config } from '../../config.ts';

/** One message as the worker hands it over. */
export interface OutgoingEmail {
  from: { name: string; address: string };
  replyTo: string | null;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** `<id@domain>`: the same for every attempt of one email. */
  messageId: string;
  headers: Record<string, string>;
  ics: { method: 'REQUEST' | 'CANCEL'; content: string } | null;
}

export type TransportName = 'SMTP' | 'SANDBOX';

export interface MailTransport {
  name: TransportName;
  send(email: OutgoingEmail): Promise<void>;
  close(): void;
}

type Mailer = ReturnType<typeof nodemailer.createTransport>;

function transportOf(name: TransportName, mailer: Mailer): MailTransport {
  return {
    name,
    async send(email) {
      await mailer.sendMail({
        from: email.from,
        ...(email.replyTo === null ? {} : { replyTo: email.replyTo }),
        to: email.to,
        subject: email.subject,
        text: email.text,
        html: email.html,
        messageId: email.messageId,
        headers: email.headers,
        // A calendar invitation: a text/calendar alternative with the method, as mail clients expect.
        ...(email.ics === null
          ? {}
          : { icalEvent: { method: email.ics.method, filename: 'invite.ics', content: email.ics.content } }),
      });
    },
    close: () => mailer.close(),
  };
}

export interface Transports {
  /** Where live emails go; null when email is off. */
  live: MailTransport | null;
  /** Where test mode's emails go (and every email in development). */
  sandbox: MailTransport;
}

export function openTransports(
  config: Pick<Partial<Config>, 'emailTransport' | 'smtpUrl' | 'emailTimeoutMs'>,
): Transports {
  const sandbox = transportOf('SANDBOX', nodemailer.createTransport({ streamTransport: true, buffer: true }));
  const timeoutMs = config.emailTimeoutMs ?? 15_000;
  let live: MailTransport | null = null;
  if (config.emailTransport === 'smtp' && config.smtpUrl !== undefined) {
    live = transportOf(
      'SMTP',
      nodemailer.createTransport({
        url: config.smtpUrl,
        connectionTimeout: timeoutMs,
        greetingTimeout: timeoutMs,
        socketTimeout: timeoutMs,
      }),
    );
  } else if (config.emailTransport !== 'off') {
    live = sandbox;
  }
  return { live, sandbox };
}
