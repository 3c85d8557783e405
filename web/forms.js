// Form plumbing shared by every form on the page: reading values, showing the API's answers.

/** The non-empty values of a form, trimmed; numbers and checkboxes converted by `types`. */
export function formValues(form, types = {}) {
  const values = {};
  for (const element of form.elements) {
    if (!element.name || element.disabled) continue;
    if (element.type === 'checkbox') {
      if (types[element.name] === 'boolean') values[element.name] = element.checked;
      continue;
    }
    const raw = typeof element.value === 'string' ? element.value.trim() : '';
    if (raw === '') continue;
    if (types[element.name] === 'number') {
      const number = Number(raw);
      values[element.name] = Number.isFinite(number) ? number : raw;
    } else values[element.name] = raw;
  }
  return values;
}

/** Removes every field error and the form's status line. */
export function clearErrors(form) {
  for (const message of form.querySelectorAll('.field-error')) message.remove();
  for (const field of form.querySelectorAll('[aria-invalid="true"]')) {
    field.removeAttribute('aria-invalid');
    const describedBy = (field.getAttribute('aria-describedby') ?? '')
      .split(' ')
      .filter((id) => id && !id.endsWith('-error'));
    if (describedBy.length) field.setAttribute('aria-describedby', describedBy.join(' '));
    else field.removeAttribute('aria-describedby');
  }
  setStatus(form, '');
}

/** The form's status line (role=status): progress and success. */
export function setStatus(form, text, tone = 'info') {
  const status = form.querySelector('.form-status');
  if (!status) return;
  status.textContent = text;
  status.dataset.tone = tone;
}

/** `body.phone`, `query.priceMax`, `body.amenities/0` -> the control's name. */
function fieldName(path) {
  return String(path)
    .replace(/^(body|querystring|query|params)[./]/, '')
    .split(/[./[]/)[0];
}

/** Shows one message under the control (or the group) named `name`; false when the form has none. */
export function showFieldError(form, name, message) {
  const control = form.querySelector(`[name="${CSS.escape(name)}"]`);
  const group = form.querySelector(`[data-field="${CSS.escape(name)}"]`);
  const anchor = control && control.type !== 'hidden' ? control : group;
  if (!anchor) return false;
  const container = anchor.closest('.field, fieldset') ?? anchor.parentElement;
  const id = `${form.id}-${name}-error`;
  let note = document.getElementById(id);
  if (!note) {
    note = document.createElement('p');
    note.className = 'field-error';
    note.id = id;
    container.append(note);
  }
  note.textContent = message;
  if (control && control.type !== 'hidden') {
    control.setAttribute('aria-invalid', 'true');
    const describedBy = new Set((control.getAttribute('aria-describedby') ?? '').split(' ').filter(Boolean));
    describedBy.add(id);
    control.setAttribute('aria-describedby', [...describedBy].join(' '));
  }
  return true;
}

function waitText(seconds) {
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}

/**
 * Shows an API failure on the form that caused it: each `error.details` item next to its field,
 * the rest in the status line; a 429 with its Retry-After, the submit button paused that long.
 * Returns the first invalid control (the caller may bring it into view).
 */
export function showApiError(form, error) {
  clearErrors(form);
  let first = null;
  const unplaced = [];
  for (const detail of error.details ?? []) {
    const name = fieldName(detail.field);
    if (showFieldError(form, name, detail.message)) {
      first ??= form.querySelector(`[name="${CSS.escape(name)}"]:not([type=hidden])`);
    } else unplaced.push(`${name}: ${detail.message}`);
  }
  if (error.status === 429) {
    const wait = error.retryAfter ?? 60;
    setStatus(
      form,
      `Too many requests right now. Please try again in ${waitText(wait)} (Retry-After: ${wait}).`,
      'error',
    );
    pauseSubmit(form, wait);
  } else if (error.details?.length) {
    setStatus(
      form,
      unplaced.length ? `Please check: ${unplaced.join('; ')}` : 'Please correct the marked fields.',
      'error',
    );
  } else {
    setStatus(form, `${error.message}${error.requestId ? ` (request ${error.requestId})` : ''}`, 'error');
  }
  return first;
}

/** Disables the form's submit buttons for `seconds`, counting down on the button. */
function pauseSubmit(form, seconds) {
  for (const button of form.querySelectorAll('button[type="submit"]')) {
    const label = button.dataset.label ?? button.textContent;
    button.dataset.label = label;
    button.dataset.paused = 'true';
    button.disabled = true;
    let left = seconds;
    button.textContent = `${label} (${left})`;
    const timer = setInterval(() => {
      left -= 1;
      if (left > 0) {
        button.textContent = `${label} (${left})`;
        return;
      }
      clearInterval(timer);
      delete button.dataset.paused;
      button.disabled = false;
      button.textContent = label;
    }, 1000);
  }
}

/**
 * Runs `work` for a submitted form: busy state while it runs, API errors shown on the form.
 * The Idempotency-Key lives as long as the form's values are the same, so a retry after a lost
 * answer cannot create a second lead or booking; new values get a new key.
 */
export async function submitWith(form, work, newKey) {
  const submit = form.querySelector('button[type="submit"]');
  const snapshot = JSON.stringify(formValues(form, { subscribedToAlerts: 'boolean' }));
  if (form.dataset.snapshot !== snapshot) {
    form.dataset.snapshot = snapshot;
    form.dataset.idempotencyKey = newKey();
  }
  clearErrors(form);
  setStatus(form, 'Sending…');
  form.setAttribute('aria-busy', 'true');
  if (submit) submit.disabled = true;
  try {
    const result = await work(form.dataset.idempotencyKey);
    delete form.dataset.snapshot;
    return { ok: true, result };
  } catch (error) {
    const first = showApiError(form, error);
    first?.focus();
    return { ok: false, error };
  } finally {
    form.removeAttribute('aria-busy');
    if (submit && !submit.dataset.paused) submit.disabled = false;
  }
}
