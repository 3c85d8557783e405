// The personal data the deals feature's tables hold, and what erasure does there (docs/privacy.md).
import type { PersonalData } from '../../platform/privacy/personal-data.ts';
import { handOverDeals } from './deals.handover.ts';

export const dealsPersonalData: PersonalData = {
  places: [
    {
      table: 'deals',
      link: 'contact_id',
      personal: ['title', 'lost_reason'],
      other: ['code', 'currency', 'status', 'intent', 'lead_source', 'saas_plan_name', 'saas_billing_period'],
      onErase: 'UNLINKED_AND_REDACTED',
      note: "The agency's business stays: the deal loses its contact, the person's name, email and phone are redacted from its title and lost reason.",
    },
    {
      table: 'deal_stage_changes',
      link: 'deal_id',
      personal: ['lost_reason'],
      other: ['from_stage_name', 'to_stage_name', 'status', 'actor_kind'],
      onErase: 'UNLINKED_AND_REDACTED',
      note: "The deals' stage history stays; lost reasons are redacted like the deal's.",
    },
  ],
  handover: { name: 'deals', run: handOverDeals },
};
