// The unsubscribe footer the service adds below every email to a visitor (RFC 8058's header carries
// the same link for mail clients' own button), in the email's language.

const escape = (value: string) =>
  value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function footer(words: { before: string; link: string }) {
  return {
    html: (url: string) =>
      `<p style="margin-top:32px;font-size:12px;color:#6b7280">${escape(words.before)} ` +
      `<a href="${escape(url)}" style="color:#6b7280">${escape(words.link)}</a></p>`,
    text: (url: string) => `${words.before} ${words.link}: ${url}`,
  };
}

export const FOOTERS = {
  es: footer({ before: '¿No quieres recibir más correos nuestros?', link: 'Darte de baja' }),
  en: footer({ before: 'Rather not get emails from us?', link: 'Unsubscribe' }),
  pt: footer({ before: 'Não quer receber mais emails nossos?', link: 'Cancelar a subscrição' }),
};
