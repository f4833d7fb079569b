import type { TMigration } from '../migration-type';

// The database records changes to what protects the firm's records itself (server/records/README.md
// "Records"): holds, walls, people's roles, deactivation and passwords, retention batches, erasure
// requests and the business hours. Whoever changes them — the app, its request role used directly,
// the owner — a row of the trail says so, chained by the trail's own insert trigger (0020) like any
// other. The app already records its own event for most of these changes, so a change stands down
// only when its transaction appended one of the covering actions on the same subject: the app's
// event. No setting a session could make up stands a change down (the request role may SET anything).
//
// Constraint triggers, deferred to commit: the app appends its event after the change, in the same
// transaction. Events a transaction appends carry its start time (the chain trigger sets `at` to
// now()), which is what "this transaction's" means here (a savepoint's rows have another xmin).
//
// Arguments: the row's key columns; 'only' or 'except' and the columns that count; the covering actions.
const CHANGE_FUNCTION = `
  CREATE FUNCTION audit_protected_change() RETURNS trigger LANGUAGE plpgsql
    SET search_path = pg_catalog, public, pg_temp AS $$
  DECLARE
    old_row jsonb := CASE WHEN TG_OP <> 'INSERT' THEN to_jsonb(OLD) END;
    new_row jsonb := CASE WHEN TG_OP <> 'DELETE' THEN to_jsonb(NEW) END;
    the_row jsonb := coalesce(new_row, old_row);
    listed text[] := string_to_array(TG_ARGV[2], ',');
    covering text[] := string_to_array(TG_ARGV[3], ',');
    raw_actor text := current_setting('app.actor', true);
    actor integer := CASE WHEN raw_actor ~ '^[0-9]{1,9}$' THEN raw_actor::integer END;
    changed text[];
    key_values jsonb;
    subject_key text;
  BEGIN
    SELECT coalesce(array_agg(k ORDER BY k), '{}') INTO changed
    FROM jsonb_object_keys(the_row) k
    WHERE (CASE TG_ARGV[1] WHEN 'only' THEN k = ANY (listed) ELSE NOT (k = ANY (listed)) END)
      AND CASE TG_OP WHEN 'UPDATE' THEN old_row -> k IS DISTINCT FROM new_row -> k
                     WHEN 'INSERT' THEN new_row -> k <> 'null'::jsonb
                     ELSE true END;
    -- A lease renewed, a name corrected: nothing that protects anything changed.
    IF TG_OP = 'UPDATE' AND cardinality(changed) = 0 THEN RETURN NULL; END IF;
    subject_key := CASE TG_TABLE_NAME
      WHEN 'legal_holds' THEN CASE WHEN the_row ->> 'client_id' IS NOT NULL THEN 'client:' || (the_row ->> 'client_id')
                                   ELSE 'case:' || (the_row ->> 'case_id') END
      WHEN 'access_members' THEN (the_row ->> 'subject_type') || ':' || (the_row ->> 'subject_id')
      WHEN 'access_screens' THEN (the_row ->> 'subject_type') || ':' || (the_row ->> 'subject_id')
      WHEN 'clients' THEN 'client:' || (the_row ->> 'id')
      WHEN 'cases' THEN 'case:' || (the_row ->> 'id')
      WHEN 'users' THEN 'user:' || (the_row ->> 'id')
      WHEN 'erasure_requests' THEN 'client:' || (the_row ->> 'client_id')
      WHEN 'retention_batches' THEN 'retention:' || (the_row ->> 'id')
      ELSE TG_TABLE_NAME END;
    IF EXISTS (SELECT 1 FROM public.audit_events e
               WHERE e.at = now() AND e.subject = subject_key AND e.action = ANY (covering)) THEN
      RETURN NULL;
    END IF;
    SELECT coalesce(jsonb_object_agg(k, the_row -> k), '{}') INTO key_values FROM unnest(string_to_array(TG_ARGV[0], ',')) k;
    INSERT INTO public.audit_events (user_id, action, subject, detail)
    VALUES (actor, 'db.change', subject_key, jsonb_build_object(
      'table', TG_TABLE_NAME, 'op', lower(TG_OP), 'row', key_values, 'changed', to_jsonb(changed),
      'dbRole', current_user::text, 'actorId', actor));
    RETURN NULL;
  END $$;`;

type TWatch = { table: string; keys: string; mode: 'only' | 'except'; columns: string; covering: string };

const WATCHED: TWatch[] = [
  { table: 'legal_holds', keys: 'id', mode: 'except', columns: '', covering: 'hold.place,hold.release' },
  {
    table: 'access_members',
    keys: 'subject_type,subject_id,user_id',
    mode: 'except',
    columns: '',
    covering: 'access.member_add,access.member_remove',
  },
  {
    table: 'access_screens',
    keys: 'subject_type,subject_id,user_id',
    mode: 'except',
    columns: '',
    covering: 'access.screen,access.unscreen',
  },
  // A batch's lease is renewed every chunk: not a change to what it destroys.
  { table: 'retention_batches', keys: 'id', mode: 'except', columns: 'locked_until', covering: 'retention.destroy' },
  { table: 'erasure_requests', keys: 'id', mode: 'except', columns: '', covering: 'erasure.request,erasure.decide' },
  { table: 'business_hours', keys: 'singleton', mode: 'except', columns: '', covering: 'settings.business_hours' },
];

const args = (w: Omit<TWatch, 'table'>) => `'${w.keys}', '${w.mode}', '${w.columns}', '${w.covering}'`;

const wholeRowTriggers = WATCHED.map(
  (w) => `CREATE CONSTRAINT TRIGGER ${w.table}_protected_change AFTER INSERT OR UPDATE OR DELETE ON ${w.table}
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION audit_protected_change(${args(w)});`,
).join('\n');

// A client's or case's wall only: their other columns change all day.
const restrictedTriggers = (['clients', 'cases'] as const)
  .map((table) => {
    const a = args({ keys: 'id', mode: 'only', columns: 'restricted', covering: 'access.restrict,access.unrestrict' });
    return `
    CREATE CONSTRAINT TRIGGER ${table}_restricted_insert AFTER INSERT ON ${table} DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW WHEN (NEW.restricted) EXECUTE FUNCTION audit_protected_change(${a});
    CREATE CONSTRAINT TRIGGER ${table}_restricted_update AFTER UPDATE OF restricted ON ${table} DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW WHEN (OLD.restricted IS DISTINCT FROM NEW.restricted) EXECUTE FUNCTION audit_protected_change(${a});
    CREATE CONSTRAINT TRIGGER ${table}_restricted_delete AFTER DELETE ON ${table} DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW WHEN (OLD.restricted) EXECUTE FUNCTION audit_protected_change(${a});`;
  })
  .join('\n');

// A person's role, deactivation and sign-in: the password's hash is named as changed, never written.
const USER_COLUMNS = ['role', 'deactivated_at', 'password_hash', 'email'];
const userArgs = args({
  keys: 'id',
  mode: 'only',
  columns: USER_COLUMNS.join(','),
  covering: 'user.add,user.role_change,user.deactivate,user.reactivate',
});
const userTriggers = `
  CREATE CONSTRAINT TRIGGER users_protected_change AFTER INSERT OR DELETE ON users DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION audit_protected_change(${userArgs});
  CREATE CONSTRAINT TRIGGER users_protected_update AFTER UPDATE ON users DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN ((${USER_COLUMNS.map((c) => `OLD.${c}`).join(', ')}) IS DISTINCT FROM (${USER_COLUMNS.map((c) => `NEW.${c}`).join(', ')}))
    EXECUTE FUNCTION audit_protected_change(${userArgs});`;

const TRIGGERS: [string, string][] = [
  ...WATCHED.map((w): [string, string] => [`${w.table}_protected_change`, w.table]),
  ...(['clients', 'cases'] as const).flatMap((t) =>
    ['insert', 'update', 'delete'].map((op): [string, string] => [`${t}_restricted_${op}`, t]),
  ),
  ['users_protected_change', 'users'],
  ['users_protected_update', 'users'],
];

// Holds, erasure requests and retention batches end (released, decided, done or superseded); they
// never vanish. Only their owner may delete them: every other role's DELETE goes (the request role's
// is taken again after each start's grants, server/core/db/request-role.ts).
const REVOKE_DELETE = `
  DO $$
  DECLARE g record;
  BEGIN
    FOR g IN SELECT DISTINCT grantee, table_name FROM information_schema.role_table_grants
             WHERE table_schema = 'public' AND table_name IN ('legal_holds', 'erasure_requests', 'retention_batches')
               AND privilege_type = 'DELETE' AND grantee <> current_user LOOP
      EXECUTE format('REVOKE DELETE ON public.%I FROM %s', g.table_name,
        CASE WHEN g.grantee = 'PUBLIC' THEN 'PUBLIC' ELSE quote_ident(g.grantee) END);
    END LOOP;
  END $$;`;

export const protectedChanges: TMigration = {
  name: '0026-protected-changes',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      ${CHANGE_FUNCTION}
      ${wholeRowTriggers}
      ${restrictedTriggers}
      ${userTriggers}
      ${REVOKE_DELETE}
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      ${TRIGGERS.map(([name, table]) => `DROP TRIGGER IF EXISTS ${name} ON ${table};`).join('\n')}
      DROP FUNCTION IF EXISTS audit_protected_change();
    `);
  },
};
