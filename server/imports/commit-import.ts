import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { QueryTypes, type Transaction } from 'sequelize';
import { assertSubjectVisible } from '../access';
import { recordAuditEvent } from '../audit';
import { announce, RESYNC_PAYLOAD } from '../events';
import { cleanFileName } from '../core/clean-file-metadata';
import { db } from '../core/db/db';
import { Attachment } from '../core/db/models/index';
import { AppError } from '../core/errors';
import { makeTempDir } from '../core/temp-files';
import type { TReader } from '../core/visibility';
import type { TMediaStore } from '../media';
import { openChatExport, type TChatExport } from './chat-export-file';
import { instantOfWritten, type TDateOrder } from './date-order';
import { fileKindOf } from './import-file-kind';
import { MAX_IMPORT_BYTES } from './import-limits';
import type { TCommitImportInput, TCommitImportResult, TImportPreview } from './import-schema';
import { readChatMessages, type TChatMessage } from './read-chat-messages';

// An export's messages become the client's records (server/imports/README.md "History from the
// phone"): all of them or none, in one transaction, a batch of rows per statement; a message already
// on the client's file (the same export, or one overlapping it) is left as it is.

const BATCH = 500;
const NO_SUCH_IMPORT = 'No such import: upload the export again.';
const FUTURE_HINT = 'read its dates the other way (day and month), or check the phone’s date settings.';

type TImportRow = {
  id: string;
  attachment_id: number;
  file_name: string;
  file_sha256: string;
  summary: Omit<TImportPreview, 'importId' | 'fileName' | 'fileSha256'>;
  state: 'preview' | 'committed';
  client_id: number | null;
  result: TCommitImportResult | null;
};

type TPlanned = { direction: 'inbound' | 'outbound'; body: string; at: string; metadata: Record<string, unknown>; file: string | null };

export async function commitImport(
  reader: TReader,
  deps: { store: TMediaStore; firmTimeZone: string },
  input: TCommitImportInput,
): Promise<TCommitImportResult> {
  // The walls first: a client the person may not see is NOT_FOUND whatever the import.
  await assertSubjectVisible(reader, { clientId: input.clientId });
  if (input.caseId !== undefined) await assertSubjectVisible(reader, { caseId: input.caseId });
  const row = await readOwnImport(reader, input.importId);
  if (row.state === 'committed') {
    // A commit whose answer was lost, asked again: the same answer, nothing added.
    if (row.client_id === input.clientId) return row.result!;
    throw new AppError('CONFLICT', 'This export has been imported to another client already.');
  }
  // The records are the conversation with the client's main number, as its messages through the provider are.
  const [client] = await db().query<{ phone: string | null; erased: boolean; case_ok: boolean }>(
    `SELECT (SELECT n.digits FROM client_numbers n WHERE n.client_id = c.id ORDER BY n."primary" DESC, n.id LIMIT 1) AS phone, c.erased_at IS NOT NULL AS erased,
            ($2::int IS NULL OR EXISTS (SELECT 1 FROM cases k WHERE k.id = $2 AND k.client_id = c.id)) AS case_ok
     FROM clients c WHERE c.id = $1`,
    { bind: [input.clientId, input.caseId ?? null], type: QueryTypes.SELECT },
  );
  if (!client) throw new AppError('NOT_FOUND', 'No such client.');
  if (client.erased) throw new AppError('PRECONDITION_FAILED', 'This client was erased: nothing can be added to their file.');
  if (!client.case_ok)
    throw new AppError('INVALID_INPUT', 'That case is not one of this client’s.', { caseId: ['Choose one of the client’s cases'] });
  const names = new Set(row.summary.participants.map((p) => p.name));
  const unknown = input.firmParticipants.filter((name) => !names.has(name));
  if (unknown.length) {
    throw new AppError('INVALID_INPUT', `Not in this export: ${unknown.join(', ')}.`, {
      firmParticipants: ['Choose names from the export'],
    });
  }
  const firm = new Set(input.firmParticipants);
  // The export came from a firm person's phone: with two or more people in it, one of them is the firm's.
  if (names.size > 1 && firm.size === 0) {
    throw new AppError('INVALID_INPUT', 'Tick the firm’s people in the chat: otherwise their messages are filed as the client’s.', {
      firmParticipants: ['Tick at least one of the firm’s people'],
    });
  }
  if ([...names].every((name) => firm.has(name))) {
    throw new AppError('INVALID_INPUT', 'Everyone in the export is marked as the firm: say which of them is the client.', {
      firmParticipants: ['Leave the client unticked'],
    });
  }
  const dateOrder = input.dateOrder ?? row.summary.dateOrder;

  const dir = await makeTempDir('upload');
  const spool = path.join(dir, 'export');
  try {
    await pipeline(deps.store.read(row.attachment_id), createWriteStream(spool, { mode: 0o600 }));
    const chat = await openChatExport(spool);
    try {
      return await db().transaction(async (transaction) => {
        // One commit of an import at a time: a second waits, then finds it committed.
        const [locked] = await db().query<{ state: string; client_id: number | null; result: TCommitImportResult | null }>(
          // NO KEY UPDATE: the progress rows' foreign key (KEY SHARE) is not held up by it.
          'SELECT state, client_id, result FROM phone_imports WHERE id = $1 FOR NO KEY UPDATE',
          { bind: [row.id], type: QueryTypes.SELECT, transaction },
        );
        if (!locked) throw new AppError('NOT_FOUND', NO_SUCH_IMPORT);
        if (locked.state === 'committed') {
          if (locked.client_id === input.clientId) return locked.result!;
          throw new AppError('CONFLICT', 'This export has been imported to another client already.');
        }
        const target = { clientId: input.clientId, caseId: input.caseId ?? null, phone: client.phone };
        // A phone's clock may be a little ahead; a message later than a day from now is a date read the wrong way round.
        const latest = Date.now() + 24 * 3_600_000;
        const plan = { latest, row, firm, dateOrder, timeZone: deps.firmTimeZone, store: deps.store, target };
        const { result, firstAt, lastAt } = await importMessages(chat, plan, transaction);
        // The span as imported, in the order chosen (the preview's was the likelier order's).
        await db().query(
          `UPDATE phone_imports SET state = 'committed', client_id = $2, case_id = $3, committed_by = $4, committed_at = now(), result = $5::jsonb,
             summary = summary || jsonb_build_object('firstAt', $6::text, 'lastAt', $7::text, 'dateOrder', $8::text, 'ambiguous', false)
           WHERE id = $1`,
          {
            bind: [row.id, input.clientId, input.caseId ?? null, reader.id, JSON.stringify(result), firstAt, lastAt, dateOrder],
            transaction,
          },
        );
        // Open views read again when it commits (rare, and up to thousands of records: not one frame each).
        if (result.imported > 0) await announce(RESYNC_PAYLOAD, transaction);
        await recordAuditEvent(
          {
            actor: { userId: reader.id, ip: reader.ip },
            action: 'import.commit',
            subject: `client:${input.clientId}`,
            detail: {
              importId: row.id,
              ...(input.caseId !== undefined ? { caseId: input.caseId } : {}),
              fileName: row.file_name,
              fileSha256: row.file_sha256,
              ...result,
            },
          },
          transaction,
        );
        return result;
      });
    } finally {
      chat.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The person's own import not yet discarded; anyone else's is NOT_FOUND, as one that does not exist. */
export async function readOwnImport(reader: TReader, importId: string, transaction?: Transaction): Promise<TImportRow> {
  const [row] = await db().query<TImportRow>(
    `SELECT id, attachment_id, file_name, file_sha256, summary, state, client_id, result FROM phone_imports
     WHERE id = $1 AND created_by = $2`,
    { bind: [importId, reader.id], type: QueryTypes.SELECT, transaction },
  );
  if (!row) throw new AppError('NOT_FOUND', NO_SUCH_IMPORT);
  return row;
}

/**
 * How far the commit has got, on a connection of its own (outside the import's transaction, which
 * shows nothing until it commits): `imports.progress` reads it while the commit runs.
 */
async function reportProgress(importId: string, done: number, total: number): Promise<void> {
  await db().query(
    `INSERT INTO phone_import_progress (import_id, done, total) VALUES ($1, $2, $3)
     ON CONFLICT (import_id) DO UPDATE SET done = excluded.done, total = excluded.total, updated_at = now()`,
    { bind: [importId, done, total] },
  );
}

type TImportPlan = {
  /** No message is later than this (now, and a day for a phone's clock): a later one means the dates are read wrongly. */
  latest: number;
  row: TImportRow;
  firm: Set<string>;
  dateOrder: TDateOrder;
  timeZone: string;
  store: TMediaStore;
  target: { clientId: number; caseId: number | null; phone: string | null };
};

async function importMessages(
  chat: TChatExport,
  plan: TImportPlan,
  transaction: Transaction,
): Promise<{ result: TCommitImportResult; firstAt: string | null; lastAt: string | null }> {
  const result = { imported: 0, duplicates: 0, attachments: 0 };
  let firstAt: string | null = null;
  let lastAt: string | null = null;
  const stored = new Set<string>();
  let batch: TPlanned[] = [];
  // Identical messages in the same second (two "ok"s) are told apart by their count within it.
  let second = '';
  const seen = new Map<string, number>();
  const flush = async () => {
    if (batch.length === 0) return;
    const inserted = await insertBatch(batch, plan.target, transaction);
    result.imported += inserted.length;
    result.duplicates += batch.length - inserted.length;
    const files = new Map(batch.filter((m) => m.file).map((m) => [(m.metadata.imported as { key: string }).key, m.file!]));
    for (const { id, key } of inserted) {
      const file = files.get(key);
      // Each of the export's files is stored once: a file named by many messages (no phone writes that) is not copied for each.
      if (!file || stored.has(file)) continue;
      stored.add(file);
      if (await storeFile(chat, file, id, plan.store, transaction)) result.attachments += 1;
    }
    batch = [];
    await reportProgress(plan.row.id, result.imported + result.duplicates, plan.row.summary.messages);
  };
  for await (const message of readChatMessages(chat.lines())) {
    if (message.content.kind === 'system') continue;
    const at = instantOfWritten(message.time, plan.dateOrder, plan.timeZone);
    if (!at) {
      throw new AppError(
        'INVALID_INPUT',
        `Line ${message.line} has no such date when read day-month the other way: choose the other date order.`,
        {
          dateOrder: ['Choose the other order'],
        },
      );
    }
    if (at.getTime() > plan.latest) {
      throw new AppError('INVALID_INPUT', `Line ${message.line} is dated after today: ${FUTURE_HINT}`, {
        dateOrder: ['Check the date order'],
      });
    }
    const iso = at.toISOString();
    if (firstAt === null || iso < firstAt) firstAt = iso;
    if (lastAt === null || iso > lastAt) lastAt = iso;
    if (iso !== second) {
      second = iso;
      seen.clear();
    }
    const planned = planMessage(message, iso, plan, chat);
    // What the export wrote, not what became of it: the same message is the same whether its file came with it or not.
    const written =
      message.content.kind === 'text' ? message.content.text : message.content.kind === 'file' ? message.content.fileName : '';
    const fingerprint = `${message.sender}|${message.content.kind}|${written}`;
    const repeat = (seen.get(fingerprint) ?? 0) + 1;
    seen.set(fingerprint, repeat);
    const key = createHash('sha256').update(`${iso}|${fingerprint}|${repeat}`).digest('hex').slice(0, 40);
    planned.metadata = { ...planned.metadata, imported: { ...(planned.metadata.imported as object), key } };
    batch.push(planned);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return { result, firstAt, lastAt };
}

function planMessage(message: TChatMessage, at: string, plan: TImportPlan, chat: TChatExport): TPlanned {
  const sender = message.sender!;
  const imported: Record<string, unknown> = { importId: plan.row.id, line: message.line, fileSha256: plan.row.file_sha256, sender };
  const content = message.content;
  const planned: TPlanned = { direction: plan.firm.has(sender) ? 'outbound' : 'inbound', body: '', at, metadata: {}, file: null };
  if (content.kind === 'text') {
    planned.body = content.text;
    if (content.edited) imported.edited = true;
  } else if (content.kind === 'file') {
    planned.body = content.caption;
    planned.metadata.kind = fileKindOf(content.fileName).kind;
    if (chat.fileNames.has(content.fileName)) planned.file = content.fileName;
    else imported.missing = 'file';
    imported.fileName = cleanFileName(content.fileName) ?? 'file';
  } else if (content.kind === 'omitted') {
    imported.missing = 'omitted';
  } else if (content.kind === 'deleted') {
    imported.missing = 'deleted';
  }
  planned.metadata.imported = imported;
  return planned;
}

async function insertBatch(
  batch: TPlanned[],
  target: TImportPlan['target'],
  transaction: Transaction,
): Promise<{ id: number; key: string }[]> {
  const rows = batch.map(({ direction, body, at, metadata }) => ({ direction, body, at, metadata }));
  return db().query<{ id: number; key: string }>(
    `INSERT INTO communications (type, direction, body, status, client_id, case_id, peer_phone, metadata, provider_timestamp, read_at, created_at, updated_at)
     SELECT 'chat', r.direction, r.body, 'imported', $1, $2, $3, r.metadata, r.at,
            CASE WHEN r.direction = 'inbound' THEN now() END, r.at, now()
     FROM jsonb_to_recordset($4::jsonb) AS r(direction text, body text, at timestamptz, metadata jsonb)
     ON CONFLICT (client_id, (metadata->'imported'->>'key')) WHERE status = 'imported' DO NOTHING
     RETURNING id, metadata->'imported'->>'key' AS key`,
    { bind: [target.clientId, target.caseId, target.phone, JSON.stringify(rows)], type: QueryTypes.SELECT, transaction },
  );
}

/** The export's file, kept as the record's attachment under its original name; false when it was empty. */
async function storeFile(chat: TChatExport, fileName: string, communicationId: number, store: TMediaStore, transaction: Transaction) {
  if (chat.fileSize(fileName) === 0) return false;
  const { kind, mimeType } = fileKindOf(fileName);
  const attachment = await Attachment.create(
    { communicationId, kind, mimeType, fileName: cleanFileName(fileName) ?? 'file', state: 'pending' },
    { transaction },
  );
  const stored = await store.write(attachment.id, await chat.openFile(fileName), { maxBytes: MAX_IMPORT_BYTES, transaction });
  await attachment.update({ size: stored.size, sha256: stored.sha256, state: 'stored' }, { transaction });
  return true;
}
