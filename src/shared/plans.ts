// The plans an organization can be on: stored values (db/schema/platform.ts), shown and accepted by the
// API and the CLI; platform/auth/plans.ts says what each allows. Imports nothing.

export const PLANS = ['FREE', 'STARTER', 'PROFESSIONAL', 'BUSINESS', 'ENTERPRISE'] as const;
export type Plan = (typeof PLANS)[number];
