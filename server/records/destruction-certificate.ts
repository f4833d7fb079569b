import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import { Writable } from 'node:stream';
import PDFDocument from 'pdfkit';
import { QueryTypes } from 'sequelize';
import { db } from '../core/db/db';
import { countOf, erasedInWords, firmTimeInWords } from './certificate-words';
import { ERASED_TOTALS_SQL } from './retention-batches';

// The destruction certificate (server/records/README.md "Records"): what a batch erased, each item by id with the
// SHA-256 of what was erased, what it left out and why, who approved it, and the trail's head after
// its `retention.destroy` row. The JSON is made from the database alone, so it is the same bytes
// every time it is asked for: its hash is stored when the batch finishes and printed on the PDF.

const require = createRequire(import.meta.url);
const FONT = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const FONT_MONO = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSansMono.ttf');
const PAGE = 5_000;

export type TCertificateBatch = {
  id: string;
  kind: 'retention' | 'erasure';
  state: string;
  retentionYears: number | null;
  cutoff: Date | null;
  approvedBy: { id: number; name: string } | null;
  approvedAt: Date | null;
  finishedAt: Date | null;
  auditHead: { id: number | null; hash: string | null };
  /** The item list's SHA-256, as its audit row records it. */
  itemsSha256: string | null;
  certificateSha256: string | null;
  totals: { records: number; files: number; bytes: number; cases: number; clients: number; leftOut: number };
  /** The erasure request an erasure batch answered (not in the JSON, whose bytes stay those its hash was taken of). */
  request: { id: number; receivedAt: Date } | null;
};

type TItem = { kind: string; item_id: number; sha256: string | null; bytes: string; left_out: string | null };

/** The batch as its certificate states it; null when there is no such batch. */
export async function readCertificateBatch(batchId: string): Promise<TCertificateBatch | null> {
  const [b] = await db().query<{
    id: string;
    kind: 'retention' | 'erasure';
    state: string;
    retention_years: number | null;
    cutoff: Date | null;
    approved_by: number | null;
    approver: string | null;
    approved_at: Date | null;
    finished_at: Date | null;
    audit_head_id: string | null;
    audit_head_hash: string | null;
    items_sha256: string | null;
    certificate_sha256: string | null;
    records: number;
    files: number;
    bytes: string;
    cases: number;
    clients: number;
    left_out: number;
    request_id: number | null;
    request_received_at: Date | null;
  }>(
    `SELECT e.id AS request_id, e.received_at AS request_received_at, b.id, b.kind, b.state, b.retention_years, b.cutoff, b.approved_by, u.name AS approver, b.approved_at, b.finished_at,
            b.audit_head_id::text, b.audit_head_hash, b.items_sha256, b.certificate_sha256, t.*
     FROM retention_batches b LEFT JOIN users u ON u.id = b.approved_by
     LEFT JOIN LATERAL (SELECT id, received_at FROM erasure_requests WHERE batch_id = b.id ORDER BY id LIMIT 1) e ON true,
     LATERAL (SELECT ${ERASED_TOTALS_SQL}
              FROM retention_items WHERE batch_id = b.id) t
     WHERE b.id = $1`,
    { bind: [batchId], type: QueryTypes.SELECT },
  );
  if (!b) return null;
  return {
    id: b.id,
    kind: b.kind,
    state: b.state,
    retentionYears: b.retention_years,
    cutoff: b.cutoff ? new Date(b.cutoff) : null,
    approvedBy: b.approved_by === null ? null : { id: b.approved_by, name: b.approver ?? 'Former user' },
    approvedAt: b.approved_at ? new Date(b.approved_at) : null,
    finishedAt: b.finished_at ? new Date(b.finished_at) : null,
    auditHead: { id: b.audit_head_id === null ? null : Number(b.audit_head_id), hash: b.audit_head_hash },
    itemsSha256: b.items_sha256,
    certificateSha256: b.certificate_sha256,
    totals: { records: b.records, files: b.files, bytes: Number(b.bytes), cases: b.cases, clients: b.clients, leftOut: b.left_out },
    request: b.request_id === null ? null : { id: b.request_id, receivedAt: new Date(b.request_received_at!) },
  };
}

/** The batch's items a page at a time, in a fixed order (kind, then id). */
async function* readItems(batchId: string): AsyncGenerator<TItem[]> {
  let after: [string, number] = ['', 0];
  for (;;) {
    const page = await db().query<TItem>(
      `SELECT kind, item_id, sha256, bytes::text, left_out FROM retention_items
       WHERE batch_id = $1 AND (erased_at IS NOT NULL OR left_out IS NOT NULL) AND (kind, item_id) > ($2::text, $3::int)
       ORDER BY kind, item_id LIMIT ${PAGE}`,
      { bind: [batchId, after[0], after[1]], type: QueryTypes.SELECT },
    );
    if (page.length) yield page;
    if (page.length < PAGE) return;
    const last = page[page.length - 1]!;
    after = [last.kind, last.item_id];
  }
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

/** Each item as the certificate lists it: one JSON object, in the fixed order. */
async function* readItemEntries(batchId: string): AsyncGenerator<string[]> {
  for await (const page of readItems(batchId)) {
    yield page.map((item) =>
      JSON.stringify(
        item.left_out
          ? { kind: item.kind, id: item.item_id, leftOut: item.left_out }
          : { kind: item.kind, id: item.item_id, sha256: item.sha256, bytes: Number(item.bytes) },
      ),
    );
  }
}

/**
 * The SHA-256 of the item list: each entry's JSON followed by a newline, in order. It goes into the
 * batch's `retention.destroy` audit row, so a certificate whose items were changed afterwards no
 * longer matches the trail.
 */
export async function hashCertificateItems(batchId: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const entries of readItemEntries(batchId)) for (const entry of entries) hash.update(`${entry}\n`);
  return hash.digest('hex');
}

/** The item list's hash as the batch's `retention.destroy` row in the trail records it; null if there is none. */
export async function readAnchoredItemsHash(batchId: string): Promise<string | null> {
  const [row] = await db().query<{ hash: string | null }>(
    `SELECT detail->>'itemsSha256' AS hash FROM audit_events WHERE action = 'retention.destroy' AND detail->>'batchId' = $1 ORDER BY id LIMIT 1`,
    { bind: [batchId], type: QueryTypes.SELECT },
  );
  return row?.hash ?? null;
}

/** Writes the certificate's JSON, streamed (a batch of 100,000 records is never held whole). */
export async function writeCertificateJson(batch: TCertificateBatch, out: Writable): Promise<void> {
  const head = {
    certificate: 'Destruction certificate',
    batchId: batch.id,
    kind: batch.kind,
    retentionYears: batch.retentionYears,
    cutoff: iso(batch.cutoff),
    approvedBy: batch.approvedBy,
    approvedAt: iso(batch.approvedAt),
    finishedAt: iso(batch.finishedAt),
    auditHead: batch.auditHead,
    itemsSha256: batch.itemsSha256,
    totals: batch.totals,
    hashes:
      'sha256 is the SHA-256 (hex) of what was erased: a record\'s text (UTF-8), a file\'s bytes, a case\'s title, a client\'s {"name", "email", "numbers"} as jsonb writes it',
  };
  const text = JSON.stringify(head);
  await write(out, `${text.slice(0, -1)},"items":[`);
  let first = true;
  for await (const entries of readItemEntries(batch.id)) {
    const lines = entries.map((entry) => {
      const line = `${first ? '' : ','}\n${entry}`;
      first = false;
      return line;
    });
    await write(out, lines.join(''));
  }
  await write(out, '\n]}\n');
}

/** Computes and keeps the JSON certificate's SHA-256 (once the batch is done). */
export async function computeCertificateHash(batchId: string): Promise<string | null> {
  const batch = await readCertificateBatch(batchId);
  if (!batch || batch.state !== 'done') return null;
  if (batch.certificateSha256) return batch.certificateSha256;
  const hash = createHash('sha256');
  await writeCertificateJson(
    batch,
    new Writable({
      write(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        callback();
      },
    }),
  );
  const sha256 = hash.digest('hex');
  await db().query('UPDATE retention_batches SET certificate_sha256 = $2 WHERE id = $1', { bind: [batchId, sha256] });
  return sha256;
}

const KIND_LABEL: Record<string, string> = { record: 'Record', file: 'File', case: 'Case', client: 'Client' };

/** The certificate as a PDF: the statement, then every item (ids and hashes; no names survive to print). */
export async function writeCertificatePdf(
  batch: TCertificateBatch,
  firm: { name: string; timeZone: string },
  out: Writable,
): Promise<void> {
  const firmName = firm.name;
  const at = (date: Date | null) => firmTimeInWords(date, firm.timeZone);
  const doc = new PDFDocument({
    size: 'A4',
    margins: { top: 48, bottom: 56, left: 48, right: 48 },
    info: { Title: `Destruction certificate ${batch.id}`, Author: firmName, Creator: 'Firm Chat' },
    font: null as unknown as string,
  });
  doc.registerFont('regular', FONT);
  doc.registerFont('mono', FONT_MONO);
  doc.pipe(out);
  const ended = once(out, 'finish');
  doc.font('regular').fontSize(16).text('Destruction certificate');
  doc.moveDown(0.5).fontSize(10);
  const t = batch.totals;
  const lines: [string, string][] = [
    ['Firm', firmName],
    ['Batch', batch.id],
    [
      'Basis',
      batch.kind === 'erasure'
        ? batch.request
          ? `The client's erasure request #${batch.request.id}, received ${at(batch.request.receivedAt)}, decided to erase`
          : "A client's erasure request, decided to erase"
        : `Retention: ${countOf(batch.retentionYears ?? 0, 'year')} after a case closed or the client's last activity (before ${at(batch.cutoff)})`,
    ],
    ['Approved by', batch.approvedBy ? `${batch.approvedBy.name} at ${at(batch.approvedAt)}` : 'nobody'],
    ['Finished', batch.finishedAt ? at(batch.finishedAt) : 'not yet'],
    ["Times are on the firm's clock", firm.timeZone],
    ['Erased', erasedInWords(t)],
    ['Left out', t.leftOut ? `${countOf(t.leftOut, 'item')} (listed below with the reason)` : 'nothing'],
    ['Audit trail head', batch.auditHead.id === null ? 'none' : `event #${batch.auditHead.id}, ${batch.auditHead.hash}`],
    ['Item list SHA-256 (in the audit trail)', batch.itemsSha256 ?? 'none'],
    ['JSON certificate SHA-256', batch.certificateSha256 ?? 'not computed yet'],
  ];
  for (const [label, value] of lines) doc.font('regular').text(`${label}: ${value}`);
  doc
    .moveDown(0.5)
    .fontSize(8)
    .fillColor('#444')
    .text(
      'Each erased item keeps its id, times, direction and provider id; what it said is gone. SHA-256 is of what was erased: ' +
        "a record's text (UTF-8), a file's bytes, a case's title, a client's name, email and numbers as JSON (jsonb's text). " +
        'The JSON certificate lists the same items; its SHA-256 above identifies it.',
    )
    .fillColor('black');
  doc.moveDown(0.8).font('mono').fontSize(7);
  for await (const page of readItems(batch.id)) {
    for (const item of page) {
      doc.text(
        `${(KIND_LABEL[item.kind] ?? item.kind).padEnd(7)} ${String(item.item_id).padStart(10)}  ${item.left_out ? `left out: ${item.left_out}` : (item.sha256 ?? 'no content held')}`,
      );
    }
  }
  doc.end();
  await ended;
}
