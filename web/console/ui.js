// Shared pieces of the developer console's modules: DOM helpers, the status line, and the console
// API call (JSON in and out, the session's CSRF token on every change).

export const $ = (selector) => document.querySelector(selector);

export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'dataset') Object.assign(node.dataset, value);
    else if (name in node && !name.includes('-')) node[name] = value;
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  node.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
  return node;
}

/** What every module shares: the CSRF token, live or test, the event catalog. */
export const state = { csrf: '', mode: 'live', eventTypes: [] };

export function say(message, isError = false) {
  const status = $('#status');
  status.textContent = message;
  status.classList.toggle('error', isError);
}

/** A console API call: JSON in and out; an error envelope becomes a thrown Error with its message. */
export async function call(method, path, body) {
  const headers = { accept: 'application/json' };
  if (method !== 'GET') headers['x-csrf-token'] = state.csrf;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
  });
  if (response.status === 401) {
    say('Your console session has ended. Ask your operator for a new link.', true);
    throw new Error('signed out');
  }
  if (response.status === 204) return null;
  const json = await response.json();
  if (!response.ok) throw new Error(json?.error?.message ?? `HTTP ${response.status}`);
  return json;
}

export const withMode = (path) => `${path}${path.includes('?') ? '&' : '?'}mode=${state.mode}`;
export const when = (iso) => (iso ? new Date(iso).toLocaleString() : '—');

/** Fills a table: a header row, then one row per entry (or "Nothing yet."). */
export function table(node, head, rows) {
  node.replaceChildren(
    el(
      'thead',
      {},
      el(
        'tr',
        {},
        head.map((name) => el('th', { scope: 'col' }, name)),
      ),
    ),
    el(
      'tbody',
      {},
      rows.length === 0
        ? el('tr', {}, el('td', { colSpan: head.length, className: 'empty' }, 'Nothing yet.'))
        : rows.map((cells) =>
            el(
              'tr',
              {},
              cells.map((cell) => el('td', {}, cell)),
            ),
          ),
    ),
  );
}

/** A button that names its action in data-* (the table's click handler reads it). */
export const action = (label, data, className = 'secondary') =>
  el('button', { type: 'button', className, dataset: data }, label);

/** Runs an action, showing its failure in the status line instead of losing it. */
export const guarded = (run) => async (event) => {
  try {
    await run(event);
  } catch (error) {
    if (error.message !== 'signed out') say(error.message, true);
  }
};

/** Shows a secret in a callout with its copy button. */
export function showSecret(calloutId, value, title) {
  const callout = $(`#${calloutId}`);
  callout.querySelector('.secret-title').textContent = title;
  callout.querySelector('code').textContent = value;
  callout.hidden = false;
  callout.querySelector('button').focus();
}

/** Wires a callout's copy button. */
export function copyButton(calloutId) {
  const callout = $(`#${calloutId}`);
  callout.querySelector('button').addEventListener(
    'click',
    guarded(async () => {
      await navigator.clipboard.writeText(callout.querySelector('code').textContent);
      say('Copied to the clipboard.');
    }),
  );
}
