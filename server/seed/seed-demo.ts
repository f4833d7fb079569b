import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { CountryCode } from 'libphonenumber-js/min';
import { DEMO_ACCOUNTS } from '../../shared/demo';
import type { TAttachmentKind } from '../../shared/communication';
import { Attachment, Communication, User } from '../core/db/models/index';
import { createUser } from '../auth';
import { createCase, createClient } from '../crm';
import { PostgresMediaStore } from '../media';
import { INTERRUPTED_SEND_ERROR } from '../messaging';
import { db } from '../core/db/db';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const ASSETS = path.join(import.meta.dirname, 'assets');

/** Puts a file from assets/ on a record, stored as an inbound download or an upload would be. */
async function attachFile(
  communicationId: number,
  file: { kind: TAttachmentKind; mimeType: string; fileName: string | null; asset: string },
): Promise<void> {
  await db().transaction(async (transaction) => {
    const row = await Attachment.create(
      { communicationId, kind: file.kind, mimeType: file.mimeType, fileName: file.fileName, state: 'pending' },
      { transaction },
    );
    const { size, sha256 } = await new PostgresMediaStore().write(row.id, createReadStream(path.join(ASSETS, file.asset)), {
      maxBytes: 1024 * 1024,
      transaction,
    });
    await row.update({ size, sha256, state: 'stored' }, { transaction });
  });
}

/** True when the database has no users yet: the only time demo data is seeded automatically. */
export async function isDatabaseEmpty(): Promise<boolean> {
  return (await User.count()) === 0;
}

/**
 * Demo users, clients (numbers typed in varied formats, national ones read in the firm's country;
 * one pair sharing the last 9 digits), cases and chat history.
 */
export async function seedDemoData(options: { defaultCountry?: CountryCode; now?: Date } = {}): Promise<void> {
  const now = options.now ?? new Date();
  const at = (msAgo: number) => new Date(now.getTime() - msAgo);
  for (const account of DEMO_ACCOUNTS) await createUser(account);
  const numbers = { defaultCountry: options.defaultCountry ?? 'GB' };

  const amelia = await createClient({ name: 'Amelia Hart', phone: '+44 7700 900123', email: 'amelia.hart@example.com' }, numbers);
  const benedict = await createClient({ name: 'Benedict Okafor', phone: '0044 7700 900456' }, numbers);
  const chloe = await createClient({ name: 'Chloe Martin', phone: '07700 900789', email: 'chloe.martin@example.com' }, numbers);
  const daniel = await createClient({ name: 'Daniel Reyes', phone: '+44 7700 900555' }, numbers);
  const daniela = await createClient({ name: 'Daniela Reyes', phone: '+353 77 0090 0555' }, numbers);
  const emily = await createClient({ name: 'Emily Novak', phone: '+1 415-555-0142', email: 'emily@novak.example' }, numbers);

  const hartLease = await createCase({
    clientId: amelia.id,
    reference: 'HART-2026-001',
    title: 'Hart v Northwind Lettings (deposit dispute)',
  });
  const hartWill = await createCase({ clientId: amelia.id, reference: 'HART-2026-002', title: 'Will and lasting power of attorney' });
  const okaforEmployment = await createCase({ clientId: benedict.id, reference: 'OKAF-2026-001', title: 'Okafor unfair dismissal claim' });
  const martinConveyancing = await createCase({ clientId: chloe.id, reference: 'MART-2026-001', title: 'Purchase of 14 Elm Row' });
  await createCase({ clientId: emily.id, reference: 'NOVA-2026-001', title: 'Cross-border contract review' });

  let seq = 0;
  const msgId = (prefix: string) => `${prefix}.demo-seed-${++seq}`;
  const chat = (c: { id: number; phone: string }, caseId: number | null) => ({
    type: 'chat' as const,
    clientId: c.id,
    caseId,
    peerPhone: c.phone.replace(/\D/g, '').replace(/^00/, ''),
  });

  await Communication.bulkCreate([
    {
      type: 'note',
      direction: null,
      status: null,
      clientId: amelia.id,
      caseId: hartLease.id,
      subject: 'Initial consultation',
      body: 'Client provided the tenancy agreement and check-out report. Deposit of £1,850 withheld in full.',
      createdAt: at(9 * DAY),
    },
    {
      type: 'email',
      direction: 'outbound',
      status: null,
      clientId: amelia.id,
      caseId: hartLease.id,
      subject: 'Letter before action sent',
      body: 'Letter before action sent to Northwind Lettings; 14 days to respond.',
      createdAt: at(6 * DAY),
    },
    {
      ...chat(amelia, hartLease.id),
      direction: 'inbound',
      status: null,
      body: 'Hi, did the letting agent reply to the letter yet?',
      metadata: { chat_msg_id: msgId('wamid') },
      providerTimestamp: at(26 * HOUR),
      createdAt: at(26 * HOUR),
      readAt: at(25 * HOUR),
    },
    {
      ...chat(amelia, hartLease.id),
      direction: 'outbound',
      status: 'read',
      body: 'Not yet, Amelia. Their deadline is Friday; we will update you then.',
      metadata: { chat_msg_id: msgId('wamid') },
      createdAt: at(25 * HOUR),
    },
    {
      ...chat(amelia, hartLease.id),
      direction: 'inbound',
      status: null,
      body: 'Thanks! 👍 Could you send me the invoice for last month too?',
      metadata: { chat_msg_id: msgId('wamid') },
      providerTimestamp: at(3 * HOUR),
      createdAt: at(3 * HOUR),
    },
    {
      ...chat(amelia, null),
      direction: 'outbound',
      status: 'delivered',
      body: 'Invoice INV-2041 is attached to your client portal. Anything else, just message us here.',
      metadata: { chat_msg_id: msgId('wamid') },
      createdAt: at(2 * HOUR),
    },
    {
      type: 'call',
      direction: 'inbound',
      status: null,
      clientId: benedict.id,
      caseId: okaforEmployment.id,
      subject: 'Call, 12 min',
      body: 'Discussed ACAS early conciliation certificate; client will send payslips.',
      createdAt: at(4 * DAY),
    },
    {
      ...chat(benedict, okaforEmployment.id),
      direction: 'outbound',
      status: 'sent',
      body: 'Hello Benedict, please send your last three payslips when you can.',
      metadata: { chat_msg_id: msgId('wamid') },
      createdAt: at(40 * MINUTE),
    },
    // Chloe last wrote days ago: her reply window is closed, as the refused message below says.
    {
      ...chat(chloe, martinConveyancing.id),
      direction: 'inbound',
      status: null,
      body: 'Has the seller agreed a completion date yet?',
      metadata: { chat_msg_id: msgId('wamid') },
      providerTimestamp: at(4 * DAY),
      createdAt: at(4 * DAY),
      readAt: at(4 * DAY - HOUR),
    },
    {
      ...chat(chloe, martinConveyancing.id),
      direction: 'outbound',
      status: 'failed',
      body: 'Your completion date is confirmed for 28 November.',
      error: 'More than 24 hours have passed since Chloe Martin last wrote: send an approved template.',
      metadata: { chat_msg_id: msgId('wamid') },
      createdAt: at(30 * HOUR),
    },
    {
      ...chat(chloe, martinConveyancing.id),
      direction: 'outbound',
      status: 'pending',
      body: 'Searches are back and clear. Call us when convenient.',
      // A send whose provider answer was lost: the demo shows what staff then see.
      metadata: { outcome: 'unknown' },
      error: INTERRUPTED_SEND_ERROR,
      createdAt: at(1 * MINUTE),
    },
    {
      ...chat(emily, null),
      direction: 'inbound',
      status: null,
      body: 'Good morning, is the contract review finished?',
      metadata: { chat_msg_id: msgId('wamid') },
      providerTimestamp: at(20 * MINUTE),
      createdAt: at(20 * MINUTE),
    },
    // A French number with the same last 9 digits as Daniel's and Daniela's, the full number of
    // neither: never guessed, stored unlinked.
    {
      type: 'chat',
      direction: 'inbound',
      status: null,
      clientId: null,
      peerPhone: '33700900555',
      body: 'Hi, this is Dan Reyes — is my appointment still at 3pm?',
      metadata: { chat_msg_id: msgId('wamid'), contact_name: 'Dan R' },
      providerTimestamp: at(50 * MINUTE),
      createdAt: at(50 * MINUTE),
    },
    // Unknown sender.
    {
      type: 'chat',
      direction: 'inbound',
      status: null,
      clientId: null,
      peerPhone: '447700900999',
      body: 'Hello, I was referred by a friend and need advice on a lease.',
      metadata: { chat_msg_id: msgId('wamid'), contact_name: 'Priya Shah' },
      providerTimestamp: at(5 * HOUR),
      createdAt: at(5 * HOUR),
      readAt: at(4 * HOUR),
    },
    {
      type: 'note',
      direction: null,
      status: null,
      clientId: daniel.id,
      subject: 'Conflict check',
      body: 'Conflict check cleared for Reyes family matters.',
      createdAt: at(2 * DAY),
    },
    {
      type: 'note',
      direction: null,
      status: null,
      clientId: daniela.id,
      subject: 'New client',
      body: 'Referred by Daniel Reyes (father).',
      createdAt: at(2 * DAY),
    },
    {
      type: 'note',
      direction: null,
      status: null,
      clientId: amelia.id,
      caseId: hartWill.id,
      subject: 'Will instructions',
      body: 'Instructions taken; draft due next week.',
      createdAt: at(12 * DAY),
    },
  ]);

  // A photo of a letter from the client and the firm's reply with a PDF (the files in assets/ were
  // made for the demo).
  const photo = await Communication.create({
    ...chat(amelia, hartLease.id),
    direction: 'inbound',
    status: null,
    body: 'The letting agent sent me this today',
    metadata: { chat_msg_id: msgId('wamid'), kind: 'image' },
    providerTimestamp: at(28 * HOUR),
    createdAt: at(28 * HOUR),
    readAt: at(27 * HOUR),
  });
  await attachFile(photo.id, { kind: 'image', mimeType: 'image/jpeg', fileName: null, asset: 'rent-increase-letter.jpg' });
  const letter = await Communication.create({
    ...chat(amelia, hartLease.id),
    direction: 'outbound',
    status: 'read',
    body: 'Thank you. Here is our client care letter: please sign it and send a photo back.',
    metadata: { chat_msg_id: msgId('wamid'), kind: 'document' },
    createdAt: at(27 * HOUR),
  });
  await attachFile(letter.id, {
    kind: 'document',
    mimeType: 'application/pdf',
    fileName: 'Client care letter.pdf',
    asset: 'client-care-letter.pdf',
  });

  // The demo's messages were sent by the demo member of staff (the thread names the sender).
  await db().query(
    "UPDATE communications SET sent_by = (SELECT id FROM users WHERE email = $1) WHERE type = 'chat' AND direction = 'outbound'",
    { bind: [DEMO_ACCOUNTS.find((a) => a.role === 'staff')!.email] },
  );

  // Who handles what (server/ownership/README.md "Ownership"): Sam is responsible for Amelia Hart and has her
  // conversation; the others wait in Unassigned.
  await db().query(
    `WITH sam AS (SELECT id FROM users WHERE email = $1),
          responsible AS (UPDATE clients SET responsible_user_id = (SELECT id FROM sam) WHERE id = $2 RETURNING id)
     INSERT INTO conversation_states (thread_key, assignee_id) SELECT 'client-' || id, (SELECT id FROM sam) FROM responsible
     ON CONFLICT (thread_key) DO UPDATE SET assignee_id = excluded.assignee_id`,
    { bind: [DEMO_ACCOUNTS.find((a) => a.role === 'staff')!.email, amelia.id] },
  );

  // Receipt history for the seeded outbound messages, so ticks show when each step happened.
  await db().query(`
    UPDATE communications c SET receipts = h.history
    FROM (
      SELECT c2.id, jsonb_object_agg(s.status, jsonb_build_object('at', c2.created_at + s.after)
               || CASE WHEN s.status = 'failed' THEN jsonb_build_object('code', 131047) ELSE '{}'::jsonb END) AS history
      FROM communications c2
      JOIN (VALUES ('sent', interval '4 seconds', 1), ('delivered', interval '35 seconds', 2), ('read', interval '9 minutes', 3),
                   ('failed', interval '6 seconds', 9)) AS s(status, after, rank)
        ON (c2.status = 'failed' AND s.status = 'failed')
        OR (c2.status <> 'failed' AND s.rank <= array_position(ARRAY['sent','delivered','read'], c2.status))
      WHERE c2.direction = 'outbound' AND c2.metadata ? 'chat_msg_id'
      GROUP BY c2.id
    ) AS h
    WHERE c.id = h.id`);
}
