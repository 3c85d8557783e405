/**
 * Rendering and checking templates without the service (email.render.ts, pure): what the worker calls
 * for every email. The HTTP behaviour is templates.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  checkTemplate,
  EMAIL_KINDS,
  EMAIL_LANGUAGES,
  renderTemplate,
} from '../../../src/features/email/index.ts';
import { VARIABLES } from '../../../src/features/email/email.kinds.ts';
import { SAMPLE_VARIABLES } from '../../../src/features/email/email.render.ts';
import { BUILT_IN_TEMPLATES } from '../../../src/features/email/email.templates.ts';

const template = {
  subject: 'Visita{{#propertyTitle}}: {{propertyTitle}}{{/propertyTitle}} – {{date}}',
  html: '<p>{{#address}}En {{address}}{{/address}}{{^address}}Sin dirección{{/address}}</p><a href="{{manageUrl}}">x</a>',
  text: 'Hola{{#firstName}} {{firstName}}{{/firstName}} & {{address}}',
};

describe('renderTemplate', () => {
  it('escapes values in HTML only, and makes a missing or null value empty and its sections false', () => {
    const rendered = renderTemplate(template, {
      propertyTitle: 'Ático <b>"Sol"</b>',
      date: '14/10/2027',
      address: null,
      firstName: 'Ana & Luis',
      manageUrl: 'https://crm.example/visits/a?b=1',
    });
    expect(rendered).toEqual({
      subject: 'Visita: Ático <b>"Sol"</b> – 14/10/2027',
      html: '<p>Sin dirección</p><a href="https:&#x2F;&#x2F;crm.example&#x2F;visits&#x2F;a?b&#x3D;1">x</a>',
      text: 'Hola Ana & Luis & ',
    });
    expect(renderTemplate(template, {}).subject).toBe('Visita –');
  });

  it('keeps the subject one line whatever the values hold', () => {
    const rendered = renderTemplate(template, { propertyTitle: 'Piso\r\n  con terraza\n', date: '\n14/10' });
    expect(rendered.subject).toBe('Visita: Piso con terraza – 14/10');
  });

  it("does not resolve names from an object's prototype", () => {
    expect(
      renderTemplate(
        { subject: '{{constructor}}', html: '{{toString}}', text: '{{#__proto__}}x{{/__proto__}}' },
        {},
      ),
    ).toEqual({
      subject: '',
      html: '',
      text: '',
    });
  });
});

describe('checkTemplate', () => {
  it('passes every built-in template, in its kind’s variables only, with samples for each of them', () => {
    for (const language of EMAIL_LANGUAGES) {
      for (const kind of EMAIL_KINDS) {
        expect(
          () => checkTemplate(kind, BUILT_IN_TEMPLATES[language][kind]),
          `${kind}/${language}`,
        ).not.toThrow();
        expect(BUILT_IN_TEMPLATES[language][kind].subject.length).toBeLessThanOrEqual(200);
      }
    }
    for (const kind of EMAIL_KINDS)
      expect(Object.keys(SAMPLE_VARIABLES[kind]).sort()).toEqual([...VARIABLES[kind]].sort());
  });

  it('names the field it was given the parts under', () => {
    expect(() => checkTemplate('LEAD_ALERT', template, 'template')).toThrow(
      'template.subject names an unknown variable {{date}}; allowed: agencyName, firstName, contactName',
    );
    expect(() => checkTemplate('VISIT_CONFIRMATION', { ...template, text: '{{link}}' }, 'stored')).toThrow(
      'stored.text names an unknown variable {{link}}; allowed: agencyName, firstName, agentName',
    );
  });
});
