import { UniqueConstraintError } from 'sequelize';
import { Case } from '../core/db/models/index';
import { AppError } from '../core/errors';
import { assertClientExists } from './clients';

export type TCaseDto = { id: number; clientId: number; reference: string; title: string; status: 'open' | 'closed'; createdAt: Date; restricted: boolean };

const toDto = (c: Case): TCaseDto => ({
  id: c.id,
  clientId: c.clientId,
  reference: c.reference,
  title: c.title,
  status: c.status,
  createdAt: c.createdAt,
  restricted: c.restricted,
});

export async function createCase(input: { clientId: number; reference: string; title: string }): Promise<TCaseDto> {
  await assertClientExists(input.clientId);
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

export async function getCase(id: number): Promise<TCaseDto> {
  const found = await Case.findByPk(id);
  if (!found) throw new AppError('NOT_FOUND', 'Case not found.');
  return toDto(found);
}

export async function listClientCases(clientId: number): Promise<TCaseDto[]> {
  const rows = await Case.findAll({
    where: { clientId },
    order: [
      ['createdAt', 'DESC'],
      ['id', 'DESC'],
    ],
  });
  return rows.map(toDto);
}
