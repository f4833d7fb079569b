import type { TMigration } from '../migration-type';

// Every change to what protects the records is the database's own row of the trail, the app's
// changes too (server/records/README.md "Records"). 0026 stood a change down when its transaction had
// appended the app's event for the same subject; but the request role may append any event, so a
// made-up event silenced the database's entry. Now the entry is always written, and names the app's
// event of its transaction, when there is one, as `appEventId` (the Audit page says it confirms it).
// It also knows a message moved between clients or cases (watched from 0029): named under the client
// it left, once per transaction and client (a number linked moves all its messages in one statement).
// The rest is 0026's function, unchanged.
const functionSql = (appEvent: 'name' | 'stand-down') => `
  CREATE OR REPLACE FUNCTION audit_protected_change() RETURNS trigger LANGUAGE plpgsql
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
    app_event bigint;
  BEGIN
    SELECT coalesce(array_agg(k ORDER BY k), '{}') INTO changed
    FROM jsonb_object_keys(the_row) k
    WHERE (CASE TG_ARGV[1] WHEN 'only' THEN k = ANY (listed) ELSE NOT (k = ANY (listed)) END)
      AND CASE TG_OP WHEN 'UPDATE' THEN old_row -> k IS DISTINCT FROM new_row -> k
                     WHEN 'INSERT' THEN new_row -> k <> 'null'::jsonb
                     ELSE true END;
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
      WHEN 'communications' THEN coalesce('client:' || coalesce(old_row ->> 'client_id', new_row ->> 'client_id'),
                                          'communication:' || (the_row ->> 'id'))
      ELSE TG_TABLE_NAME END;
    IF TG_TABLE_NAME = 'communications' AND EXISTS (SELECT 1 FROM public.audit_events e
         WHERE e.at = now() AND e.subject = subject_key AND e.action = 'db.change' AND e.detail ->> 'table' = 'communications') THEN
      RETURN NULL;
    END IF;
    SELECT e.id INTO app_event FROM public.audit_events e
    WHERE e.at = now() AND e.subject = subject_key AND e.action = ANY (covering) ORDER BY e.id DESC LIMIT 1;
    ${appEvent === 'stand-down' ? 'IF app_event IS NOT NULL THEN RETURN NULL; END IF;' : ''}
    SELECT coalesce(jsonb_object_agg(k, the_row -> k), '{}') INTO key_values FROM unnest(string_to_array(TG_ARGV[0], ',')) k;
    INSERT INTO public.audit_events (user_id, action, subject, detail)
    VALUES (actor, 'db.change', subject_key, jsonb_build_object(
      'table', TG_TABLE_NAME, 'op', lower(TG_OP), 'row', key_values, 'changed', to_jsonb(changed),
      'dbRole', current_user::text, 'actorId', actor${appEvent === 'name' ? ", 'appEventId', app_event" : ''}));
    RETURN NULL;
  END $$;`;

export const protectedChangesAlways: TMigration = {
  name: '0027-protected-changes-always',
  async up({ context: qi }) {
    await qi.sequelize.query(functionSql('name'));
  },
  async down({ context: qi }) {
    await qi.sequelize.query(functionSql('stand-down'));
  },
};
