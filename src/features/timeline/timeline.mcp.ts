import { Type } from '@fastify/type-provider-typebox';
import { ListOf, pageQuery } from '../../platform/http/pagination.ts';
import { ref } from '../../platform/http/schemas.ts';
import { defineTool, pageSummary } from '../../platform/mcp/mcp-tool.ts';
import { TimelineItemSchema } from './timeline.schema.ts';
import { contactTimeline } from './timeline.service.ts';

const GetContactTimelineInputSchema = Type.Object(
  {
    contactId: Type.String({ minLength: 1, maxLength: 64, description: 'ct_… identifier' }),
    ...pageQuery(),
  },
  { additionalProperties: false },
);

export const getContactTimelineTool = defineTool({
  name: 'get_contact_timeline',
  title: "A contact's timeline",
  description:
    'Everything that happened with one contact (ct_…, as search_contacts returns it), newest first, exactly ' +
    'like GET /v1/contacts/{id}/timeline: notes, portal forms (LEAD, VISIT_REQUEST), appointments, deals, ' +
    'messages (only with the conversations:read scope) and one USAGE item per day of product usage. Each item ' +
    'is {type, id, at, data}. Paged: `page` from 1, `pageSize` up to 100 (default 20). Use it to prepare a ' +
    'call or to see what was last said or done with the person.',
  scopes: ['contacts:read'],
  input: GetContactTimelineInputSchema,
  output: ListOf(ref(TimelineItemSchema)),
  run: async ({ db, caller }, { contactId, ...page }) => contactTimeline(db, caller, contactId, page),
  summarize: (result) => pageSummary(result, 'timeline item'),
});

export const timelineMcpTools = [getContactTimelineTool];
