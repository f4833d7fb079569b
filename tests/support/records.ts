import { createHash } from 'node:crypto';
import pg from 'pg';
import { verifyAuditChain } from '../../server/audit/audit-chain';
import { createSequelize } from '../../server/core/db/sequelize';
import { createLogger } from '../../server/core/logger';
import { sql } from './sql';

// What the records tests share: matters made old by SQL (the past cannot be made through the app),
// statements run as the request role (what a compromised request could do), and the verifier run
// as the owner.

export const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

export type TOldMatter = {
  clientId: number;
  caseId: number;
  /** The case's reference (`OLD-1`): numbered across the worker's files, which share this module. */
  reference: string;
  records: number[];
  fileId: number;
  bodies: string[];
  digits: string;
};

let made = 0;

/**
 * A client with one case closed `yearsAgo` years ago, two records on it and one on no case (all as
 * old), and a stored file on the first record. `prefix` names the case's reference (`OLD-1`) and the
 * records' provider ids (`wamid.old-1-0`).
 */
export async function makeOldMatter(ownerUrl: string, name: string, yearsAgo: number, prefix = 'OLD'): Promise<TOldMatter> {
  made += 1;
  const reference = `${prefix}-${made}`;
  const digits = `4477009${String(100000 + made).slice(-5)}`;
  const [client] = await sql<{ id: number }>(
    ownerUrl,
    `INSERT INTO clients (name, email, created_at) VALUES ($1, 'x@example.test', now() - make_interval(years => $2::int + 1)) RETURNING id`,
    [name, yearsAgo],
  );
  await sql(ownerUrl, 'INSERT INTO client_numbers (client_id, digits, "primary") VALUES ($1, $2, true)', [client!.id, digits]);
  const [kase] = await sql<{ id: number }>(
    ownerUrl,
    `INSERT INTO cases (client_id, reference, title, status, closed_at) VALUES ($1, $2, $3, 'closed', now() - make_interval(years => $4::int))
     RETURNING id`,
    [client!.id, reference, `${name} v Landlord`, yearsAgo],
  );
  const bodies = [`${name}: the first confidential message`, `${name}: the second`, `${name}: not on a case`];
  const records: number[] = [];
  for (const [i, body] of bodies.entries()) {
    const [row] = await sql<{ id: number }>(
      ownerUrl,
      `INSERT INTO communications (type, direction, body, client_id, case_id, peer_phone, metadata, created_at)
       VALUES ('chat', 'inbound', $1, $2, $3, $4, jsonb_build_object('chat_msg_id', $5::text, 'contact_name', $6::text),
               now() - make_interval(years => $7::int, days => 30))
       RETURNING id`,
      [body, client!.id, i < 2 ? kase!.id : null, digits, `wamid.${prefix.toLowerCase()}-${made}-${i}`, name, yearsAgo],
    );
    records.push(row!.id);
  }
  const bytes = Buffer.from(`%PDF-1.4 the lease of ${name}`);
  const [file] = await sql<{ id: number }>(
    ownerUrl,
    `INSERT INTO attachments (communication_id, kind, mime_type, file_name, size, sha256, state)
     VALUES ($1, 'document', 'application/pdf', $2, $3, $4, 'stored') RETURNING id`,
    [records[0], `${name} lease.pdf`, bytes.length, sha256(bytes)],
  );
  await sql(ownerUrl, 'INSERT INTO attachment_chunks (attachment_id, seq, data) VALUES ($1, 0, $2)', [file!.id, bytes]);
  return { clientId: client!.id, caseId: kase!.id, reference, records, fileId: file!.id, bodies, digits };
}

/** Runs statements in one transaction on a connection of `url`'s role; throws the first refusal. */
export async function runStatementsAs(url: string, statements: string[]): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    for (const text of statements) await client.query(text);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    await client.end();
  }
}

/** The verifier as `npm run audit:verify` runs it: on the owner's connection. */
export async function verifyTrailAs(url: string) {
  const owner = createSequelize(url, createLogger('silent'));
  try {
    return await verifyAuditChain(owner);
  } finally {
    await owner.close();
  }
}

/**
 * The database's owner edits event `eventId`, then rebuilds the chain from it with the database's own
 * hash function and moves the head: the chain alone holds again; only signed checkpoints can tell.
 */
export async function rewriteEventAsOwner(ownerUrl: string, eventId: number | string): Promise<void> {
  await sql(
    ownerUrl,
    `ALTER TABLE audit_events DISABLE TRIGGER USER;
     UPDATE audit_events SET detail = detail || '{"rewritten": true}' WHERE id = ${Number(eventId)};
     DO $$
     DECLARE r record; h text; prev text := (SELECT e.prev_hash FROM audit_events e WHERE e.id = ${Number(eventId)});
     BEGIN
       FOR r IN SELECT * FROM audit_events e WHERE e.id >= ${Number(eventId)} ORDER BY e.id LOOP
         h := audit_event_hash(prev, r.id, r.at, r.user_id, r.action, r.subject, r.detail);
         UPDATE audit_events SET prev_hash = prev, hash = h WHERE id = r.id;
         prev := h;
       END LOOP;
       UPDATE audit_chain_head SET last_hash = prev;
     END $$;
     ALTER TABLE audit_events ENABLE TRIGGER USER;`,
  );
}
