import type { TMigration } from '../migration-type';

// Records a regulator accepts (README "Records"; server/decisions/0018-hash-chained-trail-and-request-role.md).
//
// The trail is hash-chained: each row's hash is SHA-256 over the previous row's hash and the row's
// canonical JSON, computed by a row trigger that first locks the chain's head row. The lock is held
// to commit, so concurrent inserts queue on it and the chain has one order, its ids ascending; a
// statement trigger moves the head to the statement's last row. The
// trigger (SECURITY DEFINER, owned by the owner) assigns the id, the time and both hashes itself:
// the request role can append, never choose where or when. Retention, legal holds, erasure requests
// and the file access log get their tables here too.
const GENESIS = '0'.repeat(64);

// The canonical form, defined once for the trigger and the verifier (server/audit/audit-chain.ts
// builds the same text in JavaScript): jsonb's text output is deterministic (keys by length, then
// bytes; ", " and ": " between), and the time is UTC to the microsecond as PostgreSQL stores it.
const CANONICAL_FUNCTION = `
  CREATE FUNCTION audit_event_canonical(p_id bigint, p_at timestamptz, p_user integer, p_action text, p_subject text, p_detail jsonb)
    RETURNS text LANGUAGE sql STABLE AS $$
      SELECT jsonb_build_object('id', p_id, 'at', to_char(p_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"'),
        'user', p_user, 'action', p_action, 'subject', p_subject, 'detail', p_detail)::text
    $$;
  CREATE FUNCTION audit_event_hash(p_prev text, p_id bigint, p_at timestamptz, p_user integer, p_action text, p_subject text, p_detail jsonb)
    RETURNS text LANGUAGE sql STABLE AS $$
      SELECT encode(pg_catalog.sha256(pg_catalog.convert_to(p_prev || public.audit_event_canonical(p_id, p_at, p_user, p_action, p_subject, p_detail), 'UTF8')), 'hex')
    $$;`;

export const records: TMigration = {
  name: '0020-records',
  async up({ context: qi }) {
    await qi.sequelize.query(`
      ${CANONICAL_FUNCTION}

      ALTER TABLE audit_events ADD COLUMN prev_hash text, ADD COLUMN hash text;
      CREATE TABLE audit_chain_head (
        singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
        last_id bigint,
        last_hash text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );

      -- Chain what is already there, oldest first (the append-only trigger is the owner's to lift here).
      ALTER TABLE audit_events DISABLE TRIGGER audit_events_append_only;
      DO $$
      DECLARE r record; prev text := '${GENESIS}'; h text; last bigint;
      BEGIN
        FOR r IN SELECT id, at, user_id, action, subject, detail FROM audit_events ORDER BY id LOOP
          h := audit_event_hash(prev, r.id, r.at, r.user_id, r.action, r.subject, r.detail);
          UPDATE audit_events SET prev_hash = prev, hash = h WHERE id = r.id;
          prev := h;
          last := r.id;
        END LOOP;
        INSERT INTO audit_chain_head (singleton, last_id, last_hash) VALUES (true, last, prev);
      END $$;
      ALTER TABLE audit_events ENABLE TRIGGER audit_events_append_only;
      ALTER TABLE audit_events ALTER COLUMN prev_hash SET NOT NULL, ALTER COLUMN hash SET NOT NULL;
      CREATE INDEX audit_events_hash_idx ON audit_events (hash);
      CREATE INDEX audit_events_subject_idx ON audit_events (subject, id DESC);

      -- The id comes from the trigger, after the lock, so ids ascend in chain order.
      ALTER TABLE audit_events ALTER COLUMN id DROP DEFAULT;
      -- Every name is schema-qualified and pg_temp searched last: a session's temporary table or
      -- sequence named like these must never stand in for them in the owner's function.
      -- A row chains to the head, or to the row its own statement appended before it (a row trigger
      -- sees those). The head moves once per statement, after it: moved once per row, one statement
      -- of 5,000 rows left 5,000 versions of the head row to step over, and cost the square of its size.
      CREATE FUNCTION audit_events_chain() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
        SET search_path = pg_catalog, public, pg_temp AS $$
      DECLARE head_id bigint; prev text; mine text;
      BEGIN
        SELECT h.last_id, h.last_hash INTO head_id, prev FROM public.audit_chain_head h WHERE h.singleton FOR UPDATE;
        IF prev IS NULL THEN RAISE EXCEPTION 'the audit chain has no head'; END IF;
        SELECT e.hash INTO mine FROM public.audit_events e WHERE e.id > coalesce(head_id, 0) ORDER BY e.id DESC LIMIT 1;
        prev := coalesce(mine, prev);
        NEW.id := nextval('public.audit_events_id_seq'::regclass);
        NEW.at := now();
        NEW.prev_hash := prev;
        NEW.hash := public.audit_event_hash(prev, NEW.id, NEW.at, NEW.user_id, NEW.action, NEW.subject, NEW.detail);
        RETURN NEW;
      END $$;
      CREATE TRIGGER audit_events_chain BEFORE INSERT ON audit_events FOR EACH ROW EXECUTE FUNCTION audit_events_chain();
      CREATE FUNCTION audit_events_move_head() RETURNS trigger LANGUAGE plpgsql SECURITY DEFINER
        SET search_path = pg_catalog, public, pg_temp AS $$
      BEGIN
        UPDATE public.audit_chain_head h SET last_id = n.id, last_hash = n.hash, updated_at = now()
        FROM (SELECT i.id, i.hash FROM appended i ORDER BY i.id DESC LIMIT 1) n WHERE h.singleton;
        RETURN NULL;
      END $$;
      CREATE TRIGGER audit_events_chain_head AFTER INSERT ON audit_events REFERENCING NEW TABLE AS appended
        FOR EACH STATEMENT EXECUTE FUNCTION audit_events_move_head();

      -- Retention counts from a case's closing.
      ALTER TABLE cases ADD COLUMN closed_at timestamptz;
      UPDATE cases SET closed_at = updated_at WHERE status = 'closed';
      CREATE FUNCTION cases_stamp_closing() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.status = 'closed' AND (TG_OP = 'INSERT' OR OLD.status IS DISTINCT FROM 'closed') THEN
          NEW.closed_at := coalesce(NEW.closed_at, now());
        ELSIF NEW.status = 'open' THEN
          NEW.closed_at := NULL;
        END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER cases_closing BEFORE INSERT OR UPDATE OF status ON cases FOR EACH ROW EXECUTE FUNCTION cases_stamp_closing();

      -- A linked record's conversation is its client's whatever its number says: erasing the number
      -- of a client's record (or changing it) moves nothing, so it need not rebuild the summary row.
      DROP TRIGGER communications_chat_threads_move ON communications;
      CREATE TRIGGER communications_chat_threads_move
        AFTER UPDATE OF client_id, peer_phone ON communications FOR EACH ROW
        WHEN (NEW.type = 'chat' AND (OLD.client_id IS DISTINCT FROM NEW.client_id
              OR (NEW.client_id IS NULL AND OLD.peer_phone IS DISTINCT FROM NEW.peer_phone)))
        EXECUTE FUNCTION chat_threads_moved();

      -- What erasure leaves: the id, times, direction, provider id and the SHA-256 of what went.
      ALTER TABLE communications ADD COLUMN erased_at timestamptz, ADD COLUMN erased_sha256 text;
      ALTER TABLE attachments ADD COLUMN erased_at timestamptz;
      ALTER TABLE clients ADD COLUMN erased_at timestamptz, ADD COLUMN erased_sha256 text;
      ALTER TABLE cases ADD COLUMN erased_at timestamptz, ADD COLUMN erased_sha256 text;

      CREATE TABLE legal_holds (
        id serial PRIMARY KEY,
        client_id integer REFERENCES clients(id),
        case_id integer REFERENCES cases(id),
        reason text NOT NULL CHECK (length(btrim(reason)) BETWEEN 1 AND 1000),
        placed_by integer REFERENCES users(id),
        placed_at timestamptz NOT NULL DEFAULT now(),
        released_by integer REFERENCES users(id),
        released_at timestamptz,
        CHECK ((client_id IS NULL) <> (case_id IS NULL))
      );
      CREATE INDEX legal_holds_client_idx ON legal_holds (client_id) WHERE released_at IS NULL;
      CREATE INDEX legal_holds_case_idx ON legal_holds (case_id) WHERE released_at IS NULL;

      -- A batch is previewed (its items listed), approved by a director, then erased by the worker in
      -- bounded chunks; the row is its own job (leased like an attachment's download).
      CREATE TABLE retention_batches (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        kind text NOT NULL CHECK (kind IN ('retention', 'erasure')),
        state text NOT NULL CHECK (state IN ('previewed', 'approved', 'done', 'superseded')),
        cutoff timestamptz,
        retention_years integer,
        created_by integer REFERENCES users(id),
        created_at timestamptz NOT NULL DEFAULT now(),
        approved_by integer REFERENCES users(id),
        approved_at timestamptz,
        finished_at timestamptz,
        locked_until timestamptz,
        clients integer NOT NULL DEFAULT 0,
        cases integer NOT NULL DEFAULT 0,
        records integer NOT NULL DEFAULT 0,
        files integer NOT NULL DEFAULT 0,
        bytes bigint NOT NULL DEFAULT 0,
        -- Set when it is done: the SHA-256 of its certificate's item list (also in its audit row),
        -- the certificate's own hash, and the trail's head after its audit row.
        items_sha256 text,
        certificate_sha256 text,
        audit_head_id bigint,
        audit_head_hash text
      );
      -- One batch erases at a time: of two approved at once, one wins.
      CREATE UNIQUE INDEX retention_batches_one_approved ON retention_batches ((true)) WHERE state = 'approved';
      CREATE TABLE retention_items (
        batch_id uuid NOT NULL REFERENCES retention_batches(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('client', 'case', 'record', 'file')),
        item_id integer NOT NULL,
        client_id integer,
        case_id integer,
        bytes bigint NOT NULL DEFAULT 0,
        erased_at timestamptz,
        sha256 text,
        -- Why it was left out when the batch ran ('hold', 'activity', 'reopened').
        left_out text,
        PRIMARY KEY (batch_id, kind, item_id)
      );
      CREATE INDEX retention_items_pending_idx ON retention_items (batch_id, kind, item_id) WHERE erased_at IS NULL AND left_out IS NULL;

      CREATE TABLE erasure_requests (
        id serial PRIMARY KEY,
        client_id integer NOT NULL REFERENCES clients(id),
        received_at timestamptz NOT NULL,
        note text NOT NULL DEFAULT '',
        recorded_by integer REFERENCES users(id),
        recorded_at timestamptz NOT NULL DEFAULT now(),
        decision text CHECK (decision IN ('erase', 'refuse')),
        grounds text CHECK (grounds IN ('legal_claims', 'legal_obligation', 'hold')),
        decided_by integer REFERENCES users(id),
        decided_at timestamptz,
        batch_id uuid REFERENCES retention_batches(id),
        CHECK ((decision = 'refuse') = (grounds IS NOT NULL))
      );
      CREATE INDEX erasure_requests_client_idx ON erasure_requests (client_id);

      -- Who read which file on which day: the trail records the first read of each (pruned after a week).
      CREATE TABLE file_views (
        user_id integer NOT NULL,
        attachment_id integer NOT NULL,
        day date NOT NULL,
        PRIMARY KEY (attachment_id, user_id, day)
      );
      CREATE INDEX file_views_day_idx ON file_views (day);
    `);
  },
  async down({ context: qi }) {
    await qi.sequelize.query(`
      DROP TABLE IF EXISTS file_views, erasure_requests, retention_items, retention_batches, legal_holds;
      ALTER TABLE communications DROP COLUMN IF EXISTS erased_at, DROP COLUMN IF EXISTS erased_sha256;
      ALTER TABLE attachments DROP COLUMN IF EXISTS erased_at;
      ALTER TABLE clients DROP COLUMN IF EXISTS erased_at, DROP COLUMN IF EXISTS erased_sha256;
      ALTER TABLE cases DROP COLUMN IF EXISTS erased_at, DROP COLUMN IF EXISTS erased_sha256, DROP COLUMN IF EXISTS closed_at;
      DROP TRIGGER IF EXISTS cases_closing ON cases;
      DROP FUNCTION IF EXISTS cases_stamp_closing();
      DROP TRIGGER IF EXISTS audit_events_chain ON audit_events;
      DROP TRIGGER IF EXISTS audit_events_chain_head ON audit_events;
      DROP FUNCTION IF EXISTS audit_events_chain();
      DROP FUNCTION IF EXISTS audit_events_move_head();
      ALTER TABLE audit_events ALTER COLUMN id SET DEFAULT nextval('audit_events_id_seq');
      DROP INDEX IF EXISTS audit_events_hash_idx, audit_events_subject_idx;
      ALTER TABLE audit_events DROP COLUMN IF EXISTS prev_hash, DROP COLUMN IF EXISTS hash;
      DROP TABLE IF EXISTS audit_chain_head;
      DROP FUNCTION IF EXISTS audit_event_hash(text, bigint, timestamptz, integer, text, text, jsonb);
      DROP FUNCTION IF EXISTS audit_event_canonical(bigint, timestamptz, integer, text, text, jsonb);
    `);
  },
};
