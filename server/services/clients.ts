import { Op } from 'sequelize';
import { parsePhoneDigits, toMatchKey } from '../../shared/phone';
import { Client } from '../db/models';
import { AppError } from '../errors';

export type TClientDto = { id: number; name: string; phone: string; email: string | null };

const toDto = (c: Client): TClientDto => ({ id: c.id, name: c.name, phone: c.phone, email: c.email });

export async function listClients(search?: string): Promise<TClientDto[]> {
  const term = search?.trim();
  const digits = term?.replace(/\D/g, '') ?? '';
  const where = term
    ? {
        [Op.or]: [
          { name: { [Op.iLike]: `%${term.replace(/[\\%_]/g, '\\$&')}%` } },
          ...(digits.length >= 3 ? [{ phoneDigits: { [Op.like]: `%${digits}%` } }] : []),
        ],
      }
    : {};
  const rows = await Client.findAll({ where, order: [['name', 'ASC'], ['id', 'ASC']], limit: 200 });
  return rows.map(toDto);
}

export async function getClient(id: number): Promise<TClientDto> {
  const client = await Client.findByPk(id);
  if (!client) throw new AppError('NOT_FOUND', 'Client not found.');
  return toDto(client);
}

/** Throws NOT_FOUND unless the client exists (reads only its id). */
export async function assertClientExists(id: number): Promise<void> {
  if (!(await Client.findByPk(id, { attributes: ['id'] }))) throw new AppError('NOT_FOUND', 'Client not found.');
}

export async function createClient(input: { name: string; phone: string; email?: string | null }): Promise<TClientDto> {
  const digits = parsePhoneDigits(input.phone);
  if (!digits) {
    throw new AppError('INVALID_INPUT', 'Enter the phone number in international format, 8 to 15 digits.', {
      phone: ['Enter the phone number in international format, 8 to 15 digits.'],
    });
  }
  const client = await Client.create({
    name: input.name.trim(),
    phone: input.phone.trim(),
    phoneDigits: digits,
    phoneLast9: toMatchKey(digits),
    email: input.email?.trim() || null,
  });
  return toDto(client);
}
