import { literal, Op, UniqueConstraintError } from 'sequelize';
import { assertSubjectVisible } from '../access';
import { actorOf, recordAuditEvent } from '../audit';
import { db } from '../core/db/db';
import { inlineSql, sql } from '../core/sql';
import { visibleTo, type TReader } from '../core/visibility';
import { Case } from '../core/db/models/index';
import { AppError } from '../core/errors';
import { assertClientWritable } from '../core/client-writable';
import { assertClientExists } from './clients';
import { holdNotice, toHoldNotice, type THoldNotice } from './hold-notice';

export type TCaseDto = {
  id: number;
  clientId: number;
  reference: string;
  title: string;
  status: 'open' | 'closed';
  createdAt: Date;
  restricted: boolean;
  closedAt: Date | null;
  erasedAt: Date | null;
  /** A live legal hold on the case or its client (server/records/README.md "Records"). */
  hold: THoldNotice | null;
};

const WITH_HOLD = {
  include: [[literal(inlineSql(holdNotice(sql`"Case".client_id`, sql`"Case".id`))), 'hold'] as [ReturnType<typeof literal>, string]],
};

const toDto = (c: Case): TCaseDto => ({
  id: c.id,
  clientId: c.clientId,
  reference: c.reference,
  title: c.title,
  status: c.status,
  createdAt: c.createdAt,
  restricted: c.restricted,
  closedAt: c.closedAt ?? null,
  erasedAt: c.erasedAt ?? null,
  hold: toHoldNotice(c.get('hold')),
});

export async function createCase(input: { clientId: number; reference: string; title: string }): Promise<TCaseDto> {
  await assertClientExists(input.clientId);
  await assertClientWritable(input.clientId);
  try {
    return toDto(await Case.create({ clientId: input.clientId, reference: input.reference.trim(), title: input.title.trim() }));
  } catch (error) {
    if (error instanceof UniqueConstraintError) {
      const message = `${input.reference.trim()} is already another case's reference. Choose a different one.`;
      throw new AppError('CONFLICT', message, { reference: [message] });
    }
    throw error;
  }
}

export async function getCase(reader: TReader, id: number): Promise<TCaseDto> {
  await assertSubjectVisible(reader, { caseId: id });
  const found = await Case.findByPk(id, { attributes: WITH_HOLD });
  if (!found) throw new AppError('NOT_FOUND', 'Case not found.');
  return toDto(found);
}

/** The client's cases the reader may see. */
export async function listClientCases(reader: TReader, clientId: number): Promise<TCaseDto[]> {
  await assertSubjectVisible(reader, { clientId });
  const rows = await Case.findAll({
    attributes: WITH_HOLD,
    // The reader's id written into the text: a model finder's literal takes no bind.
    where: { clientId, [Op.and]: literal(inlineSql(visibleTo(reader, sql`"Case".client_id`, sql`"Case".id`))) },
    order: [
      ['createdAt', 'DESC'],
      ['id', 'DESC'],
    ],
  });
  return rows.map(toDto);
}

/**
 * Opens or closes a case (anyone who may see it); audited `case.status`. Closing starts its records'
 * retention clock (server/records/README.md "Records"); reopening stops it, and takes its records out of any batch
 * not yet erased.
 */
export async function setCaseStatus(reader: TReader, caseId: number, status: 'open' | 'closed'): Promise<TCaseDto> {
  return db().transaction(async (transaction) => {
    await assertSubjectVisible(reader, { caseId }, transaction);
    const found = await Case.findByPk(caseId, { transaction, lock: transaction.LOCK.UPDATE });
    if (!found) throw new AppError('NOT_FOUND', 'Case not found.');
    if (found.erasedAt) throw new AppError('CONFLICT', 'This case was erased under the retention policy: it cannot be reopened.');
    if (found.status === status) return toDto((await Case.findByPk(caseId, { attributes: WITH_HOLD, transaction }))!);
    const from = found.status;
    await found.update({ status }, { transaction });
    await recordAuditEvent(
      { actor: actorOf(reader), action: 'case.status', subject: `case:${caseId}`, detail: { from, to: status } },
      transaction,
    );
    // Read again: the trigger set closed_at, and the page shows the hold with it.
    return toDto((await Case.findByPk(caseId, { attributes: WITH_HOLD, transaction }))!);
  });
}
