import type { Sequelize } from 'sequelize';
import { QueryTypes } from 'sequelize';

// Requests run as a role that may read and append the audit trail and nothing more there; the
// owner migrates (server/records/README.md "Records"; server/decisions/0018-hash-chained-trail-and-request-role.md).
// With the owner's or a superuser's rights a request could lift the trail's triggers, turn them off
// for its session, or rename the table away: the rights it lacks are what make the chain's promise.

/** The embedded default's request role (local only, like the superuser's password beside it). */
export const EMBEDDED_REQUEST_ROLE = { user: 'firm_chat_app', password: 'firm-chat-app-local' } as const;

const quoteIdent = (name: string) => `"${name.replaceAll('"', '""')}"`;
const quoteLiteral = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** The embedded cluster's request role, created by its superuser when missing. */
export async function ensureEmbeddedRequestRole(owner: Sequelize): Promise<void> {
  const { user, password } = EMBEDDED_REQUEST_ROLE;
  await owner.query(
    `DO $$ BEGIN
       IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '${user}') THEN
         CREATE ROLE ${quoteIdent(user)} LOGIN PASSWORD '${password}' NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION;
       END IF;
     END $$`,
  );
}

/**
 * What the request role may do, granted by the owner after every migration (idempotent; run under
 * the migration lock so two instances starting together do not grant at once): rows of every table,
 * but only SELECT and INSERT on the trail, only SELECT on the chain's head and the migration list.
 */
export async function grantRequestRole(owner: Sequelize, role: string): Promise<void> {
  const r = quoteIdent(role);
  await owner.query(`
    GRANT USAGE ON SCHEMA public TO ${r};
    GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${r};
    GRANT USAGE, SELECT, UPDATE ON ALL SEQUENCES IN SCHEMA public TO ${r};
    REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON audit_events FROM ${r};
    REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON audit_chain_head, schema_migrations FROM ${r};
    REVOKE USAGE, UPDATE ON SEQUENCE audit_events_id_seq FROM ${r};
  `);
  // The trail's signed checkpoints are appended and read, never changed (server/audit/audit-checkpoints.ts);
  // checked for, as a run stopped at an earlier migration (a test's) has no such table.
  await owner.query(
    `DO $$ BEGIN
       IF to_regclass('public.audit_checkpoints') IS NOT NULL THEN
         EXECUTE format('REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON public.audit_checkpoints FROM %I', ${quoteLiteral(role)});
       END IF;
     END $$`,
  );
  // Holds, erasure requests and retention batches end, they never vanish (migration 0026): the grant
  // above gave DELETE back, so it goes again (checked for, as a run may stop before their migration).
  await owner.query(
    `DO $$ BEGIN
       IF to_regclass('public.legal_holds') IS NOT NULL THEN
         EXECUTE format('REVOKE DELETE ON public.legal_holds, public.erasure_requests, public.retention_batches FROM %I', ${quoteLiteral(role)});
       END IF;
       -- Invitations are used, replaced or revoked, never deleted (migration 0033).
       IF to_regclass('public.invitations') IS NOT NULL THEN
         EXECUTE format('REVOKE DELETE ON public.invitations FROM %I', ${quoteLiteral(role)});
       END IF;
       -- Messages are erased in place, never deleted (migration 0029).
       EXECUTE format('REVOKE DELETE ON public.communications FROM %I', ${quoteLiteral(role)});
     END $$`,
  );
  // What the server counts again from the records (migration 0039's schema `derived`): rows of every table.
  await owner.query(
    `DO $$ BEGIN
       IF to_regnamespace('derived') IS NOT NULL THEN
         EXECUTE format('GRANT USAGE ON SCHEMA derived TO %I', ${quoteLiteral(role)});
         EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA derived TO %I', ${quoteLiteral(role)});
       END IF;
     END $$`,
  );
  // PostgreSQL 15 and later already keep CREATE on public from everyone but its owner; older ones
  // let any role make a table there (the trail's impostor). Only the schema's owner may take it back.
  await owner.query('REVOKE CREATE ON SCHEMA public FROM PUBLIC').catch(() => undefined);
  // A batch's items are listed by the thousand just before they are erased chunk by chunk: analysed
  // at once (MAINTAIN, PostgreSQL 17 and later) the chunks are planned for what is there.
  await owner.query(
    `DO $$ BEGIN
       IF current_setting('server_version_num')::int >= 170000 THEN
         EXECUTE format('GRANT MAINTAIN ON retention_items TO %I', ${quoteLiteral(role)});
       END IF;
     END $$`,
  );
  // A temporary table or sequence is searched before public: named audit_events, it would take the
  // session's appends out of the trail. Every role may make them by default; the app never does.
  await owner.query(
    `DO $$ BEGIN
       EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC, %I', current_database(), ${quoteLiteral(role)});
     END $$`,
  );
}

export type TRoleCheck = {
  role: string;
  superuser: boolean;
  ownsTrail: boolean;
  mayChangeTrail: boolean;
  mayCreate: boolean;
  mayCreateTemporary: boolean;
};

/** How much the role a pool connects as could do to the trail. */
export async function checkRequestRole(pool: Sequelize): Promise<TRoleCheck> {
  const [row] = await pool.query<TRoleCheck>(
    `SELECT current_user AS role,
            (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) AS superuser,
            pg_has_role(current_user, (SELECT relowner FROM pg_class WHERE oid = 'public.audit_events'::regclass), 'USAGE') AS "ownsTrail",
            has_table_privilege('public.audit_events', 'UPDATE, DELETE, TRUNCATE') AS "mayChangeTrail",
            has_schema_privilege('public', 'CREATE') AS "mayCreate",
            has_database_privilege(current_database(), 'TEMPORARY') AS "mayCreateTemporary"`,
    { type: QueryTypes.SELECT },
  );
  return row!;
}

/** The trail is safe from requests when their role is neither superuser nor owner and cannot change or replace it. */
export const isLeastPrivilege = (check: TRoleCheck) =>
  !check.superuser && !check.ownsTrail && !check.mayChangeTrail && !check.mayCreate && !check.mayCreateTemporary;
