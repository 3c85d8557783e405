// The words of the built-in email templates, by language (email.templates.es.ts, .en.ts, .pt.ts): what
// each language file fills in; email.templates.ts lays them out as HTML and text.
import type { EmailKind } from './email.kinds.ts';

/** The labels of the detail rows, in one language. */
export interface DetailLabels {
  property: string;
  date: string;
  address: string;
  agent: string;
  name: string;
  phone: string;
  email: string;
  message: string;
  preferredDate: string;
  preferredTime: string;
}

/** What one kind's email says in one language (Mustache; one paragraph a string). */
export interface KindCopy {
  subject: string;
  /** Before the details. */
  intro: string[];
  /** The button's words (HTML) and the link line's (text); the link is the kind's (ACTION_URL). */
  action?: string;
  /** After the details. */
  outro?: string[];
}

/** Everything a language says: the shared parts and each kind's own. */
export interface LanguageCopy {
  /** To the visitor or the agent: `firstName` may be empty (then no name). */
  greeting: string;
  /** Lines under the text, the agency's name among them. */
  signature: string[];
  labels: DetailLabels;
  kinds: Record<EmailKind, KindCopy>;
}
