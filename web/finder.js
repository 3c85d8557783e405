// The property finder: a five-step wizard -> POST /v1/finder -> the best matches with their score
// breakdown. The person is saved as a contact by the API.
import { newIdempotencyKey } from './api.js';
import { $, el, photo } from './dom.js';
import { formValues, setStatus, submitWith } from './forms.js';
import { criterionLabel, enumLabel, outcomeLabel, priceLabel, transactionLabel } from './labels.js';

const OUTCOME_MARK = { match: '✓', partial: '≈', miss: '✗' };

export function setupFinder({ client, track, openProperty }) {
  const form = $('#finder-form');
  const steps = [...form.querySelectorAll('.wizard-step')];
  let current = 0;

  function show(index, { focus = true } = {}) {
    current = Math.max(0, Math.min(index, steps.length - 1));
    steps.forEach((step, i) => (step.hidden = i !== current));
    const last = current === steps.length - 1;
    $('[data-wizard="back"]', form).hidden = current === 0;
    $('[data-wizard="next"]', form).hidden = last;
    $('[data-wizard="submit"]', form).hidden = !last;
    const legend = steps[current].querySelector('legend').textContent;
    $('#finder-progress').textContent = `Step ${current + 1} of ${steps.length}: ${legend}`;
    if (focus) steps[current].querySelector('input, select')?.focus();
  }

  function body() {
    const values = formValues(form, {
      budgetMin: 'number',
      budgetMax: 'number',
      minBedrooms: 'number',
      subscribedToAlerts: 'boolean',
    });
    const amenities = [...form.querySelectorAll('input[name="amenities"]:checked')].map((box) => box.value);
    if (amenities.length) values.amenities = amenities;
    return values;
  }

  function breakdownTable(match) {
    return el(
      'table',
      { className: 'breakdown' },
      el('caption', {}, `Why ${match.matchScore} points`),
      el(
        'thead',
        {},
        el(
          'tr',
          {},
          el('th', { scope: 'col' }, 'Criterion'),
          el('th', { scope: 'col' }, 'Points'),
          el('th', { scope: 'col' }, 'Result'),
        ),
      ),
      el(
        'tbody',
        {},
        match.breakdown.map((item) =>
          el(
            'tr',
            { dataset: { criterion: item.criterio, outcome: item.estado } },
            el('th', { scope: 'row' }, criterionLabel(item.criterio)),
            el('td', {}, `${item.puntos} / ${item.peso}`),
            el(
              'td',
              { className: `outcome outcome-${item.estado}` },
              el('span', { 'aria-hidden': 'true' }, `${OUTCOME_MARK[item.estado] ?? ''} `),
              outcomeLabel(item.estado),
            ),
          ),
        ),
      ),
    );
  }

  function matchCard(match) {
    const open = el('a', { href: `#property/${match.id}`, className: 'card-link' }, match.title);
    open.addEventListener('click', (event) => {
      event.preventDefault();
      void openProperty(match.id, open);
    });
    const facts = [
      enumLabel(match.type),
      transactionLabel(match.transactionType),
      match.bedrooms ? `${match.bedrooms} bed` : null,
      match.area ? `${match.area} m²` : null,
      [match.neighborhood, match.city].filter(Boolean).join(', '),
    ].filter(Boolean);
    return el(
      'li',
      { className: 'match', dataset: { propertyId: match.id } },
      photo(match.photoUrl, '', 'match-photo'),
      el(
        'div',
        { className: 'match-body' },
        el('h4', { className: 'card-title' }, open),
        el('p', { className: 'price' }, priceLabel(match.price, match.currency, match.transactionType)),
        el('p', { className: 'facts' }, facts.join(' · ')),
        el(
          'p',
          { className: 'score' },
          el('meter', {
            min: 0,
            max: 100,
            low: 60,
            high: 85,
            optimum: 100,
            value: match.matchScore,
            'aria-hidden': 'true',
          }),
          el('span', { className: 'score-value' }, `${match.matchScore}% match`),
        ),
        breakdownTable(match),
      ),
    );
  }

  function renderResult(result) {
    const box = $('#finder-results');
    const shown = result.properties.length;
    box.replaceChildren(
      el(
        'p',
        { className: 'results-summary', tabIndex: -1 },
        result.total === 0
          ? 'Nothing scores 60 or more yet. We saved your search and will tell you when something fits.'
          : `${result.total} ${result.total === 1 ? 'listing fits' : 'listings fit'} your search; the best ${shown} ${shown === 1 ? 'is' : 'are'} below.`,
      ),
      el('ol', { className: 'matches' }, result.properties.map(matchCard)),
    );
    box.firstElementChild.focus();
  }

  /** After a 400, the wizard moves to the first step that has a marked field. */
  function showFirstInvalidStep() {
    const index = steps.findIndex((step) => step.querySelector('.field-error'));
    if (index >= 0 && index !== current) {
      show(index, { focus: false });
      steps[index].querySelector('[aria-invalid="true"]')?.focus();
    }
  }

  $('[data-wizard="next"]', form).addEventListener('click', () => show(current + 1));
  $('[data-wizard="back"]', form).addEventListener('click', () => show(current - 1));
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    if (current !== steps.length - 1) return show(current + 1);
    if (!client()) return setStatus(form, 'Connect with a publishable key first.', 'error');
    const outcome = await submitWith(form, (key) => client().finder(body(), key), newIdempotencyKey);
    if (!outcome.ok) return showFirstInvalidStep();
    track('FINDER_SUBMIT');
    setStatus(form, 'Your search is saved.', 'success');
    renderResult(outcome.result);
  });

  return {
    start: () => show(0, { focus: false }),
  };
}
