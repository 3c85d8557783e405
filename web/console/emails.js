// The email log (issue 41): the organization's emails of the last 7 days in the chosen mode, newest
// first, with their status (and why one was skipped, failed or bounced); one email with what it said.
import { $, action, call, el, table, when, withMode } from './ui.js';

export async function loadEmails(event) {
  event?.preventDefault();
  const form = new FormData($('#emails-form'));
  const query = new URLSearchParams({ pageSize: '50' });
  for (const name of ['status', 'kind']) if (form.get(name)) query.set(name, form.get(name));
  const { data, meta } = await call('GET', withMode(`/console/api/emails?${query}`));
  $('#email-detail').hidden = true;
  $('#emails-count').textContent = `${meta.total}${meta.totalIsLowerBound ? '+' : ''} in the last 7 days.`;
  table(
    $('#emails-table'),
    ['Created', 'Kind', 'To', 'Subject', 'Status', 'Reason', 'Attempts', 'Sent', ''],
    data.map((email) => [
      when(email.createdAt),
      email.kind,
      email.to ?? '—',
      email.subject ?? '—',
      el('span', { className: `badge ${email.status.toLowerCase()}` }, email.status),
      email.reason ?? '',
      String(email.attempts),
      when(email.sentAt),
      action('View', { email: email.id }),
    ]),
  );
}

export async function onEmailAction(event) {
  const button = event.target.closest('button[data-email]');
  if (!button) return;
  const { data } = await call('GET', withMode(`/console/api/emails/${button.dataset.email}`));
  $('#email-detail').hidden = false;
  $('#email-detail-title').textContent = `${data.kind} — ${data.id}`;
  $('#email-meta').textContent =
    `Message-ID ${data.messageId} · ${data.transport ?? 'not sent'} · ` +
    `${data.icsMethod ? `invitation (${data.icsMethod}) attached` : 'no invitation'}`;
  // The plain-text body only: the HTML one is never rendered here (it is the agency's, not ours).
  $('#email-text').textContent = data.text ?? '(not composed)';
  $('#email-detail-title').focus();
}
