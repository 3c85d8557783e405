/**
 * A real SMTP server in the test process (`smtp-server`, from the Nodemailer project), keeping every
 * message it accepts parsed by `mailparser`, as a mail provider would receive it. `hold` delays the
 * answer to a message's data (the message is kept first: a sender killed meanwhile never learns it
 * went); `refuse` answers a temporary failure to the recipients.
 */
import type { AddressInfo } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  parsed: ParsedMail;
  raw: string;
  /** The envelope's recipients (RCPT TO). */
  to: string[];
}

export interface TestSmtpServer {
  url: string;
  received: ReceivedMail[];
  /** Milliseconds the next answers to DATA wait (0: at once). */
  hold: number;
  /** While set, every recipient is refused with this temporary (4xx) answer. */
  refuse: string | null;
  /** Called with each message as it is kept, before its answer. */
  onReceive: ((mail: ReceivedMail) => void) | null;
  close(): Promise<void>;
}

export async function startSmtpServer(): Promise<TestSmtpServer> {
  const state: Omit<TestSmtpServer, 'url' | 'close'> = {
    received: [],
    hold: 0,
    refuse: null,
    onReceive: null,
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onRcptTo(address, _session, callback) {
      if (state.refuse !== null) {
        const error = Object.assign(new Error(state.refuse), { responseCode: 451 });
        callback(error);
        return;
      }
      void address;
      callback();
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        void simpleParser(raw).then((parsed) => {
          const mail = { parsed, raw, to: session.envelope.rcptTo.map((rcpt) => rcpt.address) };
          state.received.push(mail);
          state.onReceive?.(mail);
          setTimeout(() => callback(), state.hold);
        }, callback);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const result = state as TestSmtpServer;
  result.url = `smtp://127.0.0.1:${port}`;
  result.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return result;
}
