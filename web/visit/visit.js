// The visitor's page of a booked visit (docs/booking.md "The visitor's own link"): it only calls the
// public routes under /v1/booking/manage/{token}, the token being the last segment of this page's URL.
const token = decodeURIComponent(location.pathname.split('/').filter(Boolean)[1] ?? '');
const $ = (id) => document.getElementById(id);
let visit = null;
let shown = null;

async function call(path, method = 'GET', body = undefined) {
  const response = await fetch(`/v1/booking/manage/${encodeURIComponent(token)}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const payload = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(payload.error?.message ?? `The service answered ${response.status}`);
  // Booking answers are double-wrapped, `{data: {data}}` (docs/booking.md).
  return payload.data?.data;
}

function say(text) {
  $('status').textContent = text;
}

function render() {
  $('when').textContent = `${visit.date} at ${visit.startTime} (${visit.timezone})`;
  $('agent').textContent = visit.agent.fullName;
  $('state').textContent = visit.status.toLowerCase();
  $('visit').hidden = false;
  $('actions').hidden = !visit.canChange;
  say(
    visit.canChange
      ? 'You can move or cancel this visit until it starts.'
      : 'This visit can no longer be changed.',
  );
}

async function showMonth(year, month) {
  shown = { year, month };
  const availability = await call(`/availability?year=${year}&month=${month}`);
  $('month').textContent = `${year}-${String(month + 1).padStart(2, '0')}`;
  const list = $('dates');
  list.replaceChildren();
  for (const day of availability.availableDates) {
    const item = document.createElement('li');
    item.append(document.createTextNode(day.date));
    item.append(document.createElement('br'));
    for (const time of day.slots) {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'slot';
      button.textContent = time;
      button.addEventListener('click', () => move(day.date, time));
      item.append(button);
    }
    list.append(item);
  }
  if (availability.availableDates.length === 0) {
    const item = document.createElement('li');
    item.textContent = 'No free time this month.';
    list.append(item);
  }
  $('slots').hidden = false;
}

async function move(date, startTime) {
  try {
    visit = await call('/move', 'POST', { date, startTime });
    $('slots').hidden = true;
    render();
    say(`Moved to ${visit.date} at ${visit.startTime}.`);
  } catch (error) {
    say(error.message);
  }
}

async function cancel() {
  if (!window.confirm('Cancel this visit?')) return;
  try {
    visit = await call('/cancel', 'POST', {});
    $('slots').hidden = true;
    render();
    say('Your visit is cancelled.');
  } catch (error) {
    say(error.message);
  }
}

function step(delta) {
  const month = shown.month + delta;
  void showMonth(shown.year + Math.floor(month / 12), ((month % 12) + 12) % 12).catch((error) =>
    say(error.message),
  );
}

$('cancel').addEventListener('click', () => void cancel());
$('move').addEventListener('click', () => {
  const [year, month] = visit.date.split('-').map(Number);
  void showMonth(year, month - 1).catch((error) => say(error.message));
});
$('previous').addEventListener('click', () => step(-1));
$('next').addEventListener('click', () => step(1));

call('')
  .then((data) => {
    visit = data;
    render();
  })
  .catch((error) => say(error.message));
