// Online booking: agents -> a month of availability -> a day -> a time -> POST /v1/booking/{slug}.
import { newIdempotencyKey } from './api.js';
import { $, el } from './dom.js';
import { clearErrors, formValues, setStatus, submitWith } from './forms.js';
import { dayLabel, monthLabel } from './labels.js';

/** How far ahead the calendar goes (the service books up to 60 days ahead by default). */
const MONTHS_AHEAD = 2;

export function setupBooking({ client, notify }) {
  const today = new Date();
  const state = {
    agents: [],
    agent: null,
    month: today.getMonth(),
    year: today.getFullYear(),
    availability: null,
    date: null,
    time: null,
    property: null,
  };
  const form = $('#booking-form');
  const monthsFromNow = () => (state.year - today.getFullYear()) * 12 + state.month - today.getMonth();

  function resetChoice() {
    state.date = null;
    state.time = null;
    $('#slots').replaceChildren();
    form.hidden = true;
  }

  function renderAgents() {
    const list = $('#booking-agents');
    if (state.agents.length === 0) {
      list.replaceChildren(el('p', { className: 'hint' }, 'No agent takes online bookings at the moment.'));
      return;
    }
    list.replaceChildren(
      ...state.agents.map((agent) => {
        const input = el('input', {
          type: 'radio',
          name: 'agent',
          value: agent.slug,
          id: `agent-${agent.slug}`,
          checked: state.agent?.slug === agent.slug,
        });
        input.addEventListener('change', () => selectAgent(agent));
        return el(
          'div',
          { className: 'agent-option' },
          input,
          el(
            'label',
            { htmlFor: `agent-${agent.slug}` },
            el('span', { className: 'agent-name' }, agent.fullName),
            el(
              'span',
              { className: 'hint' },
              agent.autoConfirm ? 'Confirms bookings at once' : 'Confirms each booking personally',
              ` · ${agent.slotMinutes} min`,
            ),
          ),
        );
      }),
    );
  }

  function renderCalendar() {
    const calendar = $('#calendar');
    const free = new Map((state.availability?.availableDates ?? []).map((d) => [d.date, d.slots]));
    $('#calendar-title').textContent = `2. Pick a day · ${monthLabel(state.month, state.year)}`;
    $('#calendar-prev').disabled = monthsFromNow() <= 0;
    $('#calendar-next').disabled = monthsFromNow() >= MONTHS_AHEAD;
    $('#calendar-timezone').textContent = state.availability?.configured
      ? `Times are in ${state.availability.timezone}. ${free.size} ${free.size === 1 ? 'day has' : 'days have'} free times this month.`
      : 'This agent does not take online bookings.';

    const days = new Date(Date.UTC(state.year, state.month + 1, 0)).getUTCDate();
    // Monday first: ISO weekday of the 1st minus one empty cells.
    const lead = (new Date(Date.UTC(state.year, state.month, 1)).getUTCDay() + 6) % 7;
    const cells = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].map((d) =>
      el('span', { className: 'weekday', 'aria-hidden': 'true' }, d),
    );
    for (let i = 0; i < lead; i += 1)
      cells.push(el('span', { className: 'day empty', 'aria-hidden': 'true' }));
    for (let day = 1; day <= days; day += 1) {
      const date = `${state.year}-${String(state.month + 1).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
      const slots = free.get(date);
      if (!slots) {
        cells.push(el('span', { className: 'day', 'aria-hidden': 'true' }, String(day)));
        continue;
      }
      const button = el(
        'button',
        {
          type: 'button',
          className: 'day free',
          dataset: { date },
          'aria-pressed': state.date === date ? 'true' : 'false',
          'aria-label': `${dayLabel(date)}, ${slots.length} free ${slots.length === 1 ? 'time' : 'times'}`,
        },
        String(day),
      );
      button.addEventListener('click', () => selectDate(date, slots));
      cells.push(button);
    }
    calendar.replaceChildren(...cells);
  }

  function selectDate(date, slots) {
    state.date = date;
    state.time = null;
    form.hidden = true;
    for (const button of document.querySelectorAll('#calendar .day.free')) {
      button.setAttribute('aria-pressed', button.dataset.date === date ? 'true' : 'false');
    }
    $('#slots').replaceChildren(
      el('p', { className: 'slots-title' }, `3. Pick a time on ${dayLabel(date)}`),
      el(
        'div',
        { className: 'slot-list' },
        slots.map((time) => {
          const button = el(
            'button',
            { type: 'button', className: 'slot', dataset: { time }, 'aria-pressed': 'false' },
            time,
          );
          button.addEventListener('click', () => selectTime(time));
          return button;
        }),
      ),
    );
    $('#slots .slot')?.focus();
  }

  function selectTime(time) {
    state.time = time;
    for (const button of document.querySelectorAll('#slots .slot')) {
      button.setAttribute('aria-pressed', button.dataset.time === time ? 'true' : 'false');
    }
    const about = state.property ? ` about “${state.property.title}”` : '';
    $('#booking-choice').textContent =
      `4. Your details: ${dayLabel(state.date)} at ${time} (${state.availability.timezone}) with ${state.agent.fullName}${about}.`;
    clearErrors(form);
    form.hidden = false;
    $('#booking-result').hidden = true;
    form.elements.firstName.focus();
  }

  async function loadAvailability() {
    resetChoice();
    if (!state.agent) return;
    $('#calendar').setAttribute('aria-busy', 'true');
    try {
      state.availability = await client().availability(state.agent.slug, state.month, state.year);
    } catch (error) {
      state.availability = null;
      notify(`Could not load the calendar: ${error.message}`);
    } finally {
      $('#calendar').removeAttribute('aria-busy');
    }
    renderCalendar();
  }

  function selectAgent(agent) {
    state.agent = agent;
    $('#booking-result').hidden = true;
    void loadAvailability();
  }

  function moveMonth(step) {
    const next = new Date(state.year, state.month + step, 1);
    state.month = next.getMonth();
    state.year = next.getFullYear();
    void loadAvailability();
  }

  $('#calendar-prev').addEventListener('click', () => moveMonth(-1));
  $('#calendar-next').addEventListener('click', () => moveMonth(1));

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const body = {
      ...formValues(form),
      date: state.date,
      startTime: state.time,
      ...(state.property ? { propertyId: state.property.id } : {}),
    };
    const outcome = await submitWith(
      form,
      (key) => client().book(state.agent.slug, body, key),
      newIdempotencyKey,
    );
    if (!outcome.ok) {
      // 409: someone took the slot; 400 on the date or time: it is no longer offered (the notice passed).
      const slotField = (outcome.error.details ?? []).some((d) =>
        ['body.date', 'body.startTime'].includes(d.field),
      );
      if (outcome.error.code === 'DUPLICATE' || slotField) {
        const why = outcome.error.code === 'DUPLICATE' ? 'was taken a moment ago' : 'is no longer offered';
        setStatus(form, `That time ${why}: please pick another one.`, 'error');
        await loadAvailability();
      }
      return;
    }
    const receipt = outcome.result;
    const when = `${dayLabel(state.date)} at ${state.time}`;
    const result = $('#booking-result');
    result.dataset.status = receipt.status;
    result.dataset.appointmentId = receipt.appointmentId;
    result.replaceChildren(
      el('p', { className: 'receipt-status' }, receipt.status),
      el(
        'p',
        {},
        receipt.status === 'CONFIRMED'
          ? `Your visit with ${state.agent.fullName} is confirmed for ${when}.`
          : `Your visit with ${state.agent.fullName} on ${when} is scheduled; the agent will confirm it shortly.`,
      ),
      el('p', { className: 'hint' }, `Reference ${receipt.appointmentId}`),
    );
    result.hidden = false;
    for (const name of ['firstName', 'phone', 'email']) form.elements[name].value = '';
    await loadAvailability();
    result.focus();
  });

  return {
    /** Loads the bookable agents (after connecting) and the first one's month. */
    async load() {
      try {
        state.agents = await client().bookingAgents();
      } catch (error) {
        state.agents = [];
        notify(`Could not load the agents: ${error.message}`);
      }
      state.agent = state.agents[0] ?? null;
      renderAgents();
      await loadAvailability();
    },
    /** Books about this property (from its detail): preselects its agent when that agent books online. */
    forProperty(property) {
      state.property = property ?? null;
      const note = $('#booking-property');
      note.hidden = !property;
      note.textContent = property ? `Booking a visit to “${property.title}”.` : '';
      const own = state.agents.find((agent) => agent.id === property?.agent?.id);
      if (own && own !== state.agent) {
        state.agent = own;
        renderAgents();
        void loadAvailability();
      }
      $('#booking').scrollIntoView({ block: 'start' });
      ($('#booking-agents input:checked') ?? $('#booking-agents input'))?.focus();
    },
  };
}
