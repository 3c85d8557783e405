ALTER TABLE "idempotency_keys" DROP CONSTRAINT "idempotency_keys_organization_id_organizations_id_fk";
