import type { TCommunication } from '../../shared/communication';
import { Case, Communication, INCLUDE_ATTACHMENTS } from '../db/models';
import { AppError } from '../errors';
import { assertClientExists } from './clients';

const TIMELINE_LIMIT = 500;

async function listCommunications(where: { clientId: number } | { caseId: number }): Promise<TCommunication[]> {
  const rows = await Communication.findAll({
    where,
    order: [['createdAt', 'DESC'], ['id', 'DESC']],
    limit: TIMELINE_LIMIT,
    include: INCLUDE_ATTACHMENTS,
  });
  return rows.map((row) => row.toDto());
}

/** Every record type for the client, newest first. */
export async function getClientTimeline(clientId: number): Promise<{ items: TCommunication[] }> {
  await assertClientExists(clientId);
  return { items: await listCommunications({ clientId }) };
}

/** Every record type filed on the case, newest first. */
export async function getCaseTimeline(caseId: number): Promise<{ items: TCommunication[] }> {
  if (!(await Case.findByPk(caseId, { attributes: ['id'] }))) throw new AppError('NOT_FOUND', 'Case not found.');
  return { items: await listCommunications({ caseId }) };
}
