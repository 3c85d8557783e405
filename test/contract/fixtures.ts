/**
 * The fixtures test/contract/request-examples.test.ts sends examples with: one organization's agents,
 * keys, listings, contacts, visits, deals and the rest, made on first use by the prefix of the id an
 * example names.
 */
import type { FastifyInstance } from 'fastify';
import {
  createAgent,
  createApiKey,
  createContact,
  createProperty,
  FAST,
  nextPhone,
  type Tenant,
} from '../helpers/factories.ts';
import { admin, api, expectStatus } from '../helpers/http.ts';

const DAY = 86_400_000;
let sequence = 0;
const next = () => (sequence += 1);

/** A week's worth of days, any time: the agents the examples book with. */
const ALL_WEEK = {
  timezone: 'Europe/Madrid',
  weekdays: [1, 2, 3, 4, 5, 6, 7],
  horizonDays: 730,
  minNoticeMinutes: 0,
};

/** Fixtures of one organization, made on first use; `fresh` ones are made anew for every operation. */
export class Fixtures {
  private made = new Map<string, Promise<string>>();
  readonly extras: Record<string, unknown> = {};
  constructor(
    readonly app: FastifyInstance,
    readonly tenant: Tenant,
  ) {}

  get(name: string): Promise<string> {
    let value = this.made.get(name);
    if (!value) {
      value = this.make(name);
      this.made.set(name, value);
    }
    return value;
  }

  private async pipeline(): Promise<{ id: string; stages: { id: string; name: string }[] }> {
    return JSON.parse(await this.get('pipeline'));
  }

  private get org() {
    return this.tenant.org.id;
  }

  private async bookableAgent(): Promise<{ id: string; slug: string }> {
    const slug = `examples-${Date.now().toString(36)}-${next()}`;
    const agent = await createAgent(this.app, this.org, { bookingSlug: slug, booking: ALL_WEEK });
    return { id: agent.id, slug };
  }

  private async make(name: string): Promise<string> {
    const secret = this.tenant.secret.key;
    const publishable = this.tenant.publishable.key;
    const later = (days: number) => new Date(Date.now() + days * DAY).toISOString().slice(0, 10);
    switch (name) {
      case 'org':
        return this.org;
      case 'key':
        return (await createApiKey(this.app, this.org, { type: 'secret', ...FAST })).id;
      case 'agt':
        return (await this.bookableAgent()).id;
      case 'slug':
        return (await this.bookableAgent()).slug;
      case 'prop': {
        const property = await createProperty(this.app, this.org, { agentId: await this.get('agt') });
        this.extras.property = property;
        return property.id;
      }
      case 'ph':
        await this.get('prop');
        return (this.extras.property as { photos: { id: string }[] }).photos[0]!.id;
      case 'ct':
      case 'ct:sourceContactId':
        return (
          await createContact(this.app, this.tenant, {
            via: 'api',
            body: { lastName: `Example ${next()}`, phone: nextPhone() },
          })
        ).id;
      case 'vr': {
        const body = {
          firstName: 'Marta',
          phone: nextPhone(),
          propertyId: await this.get('prop'),
          preferredDate: later(10),
        };
        return expectStatus(
          await api(this.app, 'POST', '/v1/leads/schedule', { key: publishable, body }),
          201,
        ).data.visitRequestId;
      }
      case 'apt': {
        const body = {
          agentId: (await this.bookableAgent()).id,
          contactId: await this.get('ct'),
          date: later(12),
          startTime: '10:00',
          type: 'SHOWING',
        };
        return expectStatus(await api(this.app, 'POST', '/v1/appointments', { key: secret, body }), 201).data
          .id;
      }
      case 'token': {
        const { slug } = await this.bookableAgent();
        const body = { firstName: 'Marta', phone: nextPhone(), date: later(12), startTime: '10:00' };
        const answer = expectStatus(
          await api(this.app, 'POST', `/v1/booking/${slug}`, { key: publishable, body }),
          201,
        );
        const manageUrl = String(JSON.stringify(answer).match(/"manageUrl":"([^"]+)"/)?.[1]);
        return new URL(manageUrl).pathname.split('/').at(-1)!;
      }
      case 'task':
        return expectStatus(
          await api(this.app, 'POST', '/v1/tasks', { key: secret, body: { title: 'Call back' } }),
          201,
        ).data.id;
      case 'pl':
        return (await this.pipeline()).id;
      case 'stg':
        // A move example names a stage of the deal's pipeline (the deal fixture is made in this one).
        return (await this.pipeline()).stages.find((stage) => stage.name === 'Lost')!.id;
      case 'pipeline': {
        const body = {
          name: `Sales ${next()}`,
          stages: [
            { name: 'New', kind: 'OPEN' },
            { name: 'Visit done', kind: 'OPEN' },
            { name: 'Won', kind: 'WON' },
            { name: 'Lost', kind: 'LOST' },
          ],
        };
        const path = `/admin/v1/organizations/${this.org}/pipelines`;
        return JSON.stringify(expectStatus(await admin(this.app, 'POST', path, body), 201).data);
      }
      case 'deal': {
        const body = {
          title: 'Flat in Soho',
          contactId: await this.get('ct'),
          pipelineId: await this.get('pl'),
        };
        return expectStatus(await api(this.app, 'POST', '/v1/deals', { key: secret, body }), 201).data.id;
      }
      case 'wh': {
        const body = { url: 'https://hooks.example.com/fixture', eventTypes: ['contact.created'] };
        return expectStatus(await api(this.app, 'POST', '/v1/webhooks', { key: secret, body }), 201).data.id;
      }
      case 'mnum': {
        const body = { phone: '+34600999000', providerNumberId: `pn-${next()}` };
        const path = `/admin/v1/organizations/${this.org}/messaging-numbers`;
        return expectStatus(await admin(this.app, 'POST', path, body), 201).data.id;
      }
      case 'tpl': {
        // Its variables are a reminder's, so the calendar settings may name it.
        const body = {
          name: `visit_reminder_${next()}`,
          language: 'es',
          category: 'UTILITY',
          body: 'Hola {{firstName}}, le esperamos el {{date}} a las {{time}} en {{address}}.',
          status: 'APPROVED',
        };
        const path = `/admin/v1/organizations/${this.org}/message-templates`;
        return expectStatus(await admin(this.app, 'POST', path, body), 201).data.id;
      }
      default:
        throw new Error(
          `no fixture for "${name}": add one to Fixtures.make, or list the operation in NOT_EXERCISED with the reason`,
        );
    }
  }
}
