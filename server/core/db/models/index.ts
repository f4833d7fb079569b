import type { Sequelize } from 'sequelize';
import { ATTACHMENT_KINDS } from '../../../../shared/communication';
import { Attachment } from './attachment';
import { Case } from './case';
import { Client } from './client';
import { ClientNumber } from './client-number';
import { Communication, type TCommunicationRecord } from './communication';
import { Session } from './session';
import { User } from './user';

export { Attachment, Case, Client, ClientNumber, Communication, Session, User };
export { communicationDtoOf, type TCommunicationRecord } from './communication';

export function initModels(sequelize: Sequelize) {
  for (const model of [User, Session, Client, ClientNumber, Case, Communication, Attachment]) model.initModel(sequelize);
  Client.hasMany(ClientNumber, { as: 'numbers', foreignKey: 'clientId' });
  ClientNumber.belongsTo(User, { as: 'addedByUser', foreignKey: 'addedBy' });
  Communication.hasMany(Attachment, { as: 'attachments', foreignKey: 'communicationId' });
}

/** Every column of a record, for raw SELECTs read back into models (`mapToModel`); not the long `search`. */
export function communicationColumnsSql(alias: string): string {
  return Object.values(Communication.getAttributes())
    .map((attribute) => `${alias}.${attribute.field}`)
    .join(', ');
}

/** Every column of a record named as its attribute (`client_id AS "clientId"`): raw rows shaped as `TCommunicationRecord`. */
export function communicationFieldsSql(alias: string): string {
  return Object.entries(Communication.getAttributes())
    .map(([name, attribute]) => `${alias}.${attribute.field} AS "${name}"`)
    .join(', ');
}

const FILE_KINDS = new Set<string>(ATTACHMENT_KINDS);

/**
 * Puts their files and their senders on the records: one query each for the page, and none when
 * nothing on it needs one (every writer of a file sets `metadata.kind` to its kind).
 */
export async function withDetails<T extends TCommunicationRecord>(rows: T[]): Promise<T[]> {
  const fileIds = rows.filter((row) => FILE_KINDS.has(row.metadata?.kind ?? 'text')).map((row) => row.id);
  const senderIds = [...new Set(rows.map((row) => row.sentBy).filter((id): id is number => typeof id === 'number'))];
  const [files, senders] = await Promise.all([
    fileIds.length ? Attachment.findAll({ where: { communicationId: fileIds }, order: [['id', 'ASC']] }) : [],
    senderIds.length ? User.findAll({ where: { id: senderIds }, attributes: ['id', 'name'] }) : [],
  ]);
  const byRecord = new Map<number, Attachment[]>();
  for (const file of files) byRecord.set(file.communicationId!, [...(byRecord.get(file.communicationId!) ?? []), file]);
  const names = new Map(senders.map((user) => [user.id, user.name]));
  for (const row of rows) {
    row.attachments = byRecord.get(row.id) ?? [];
    row.sender = row.sentBy ? { id: row.sentBy, name: names.get(row.sentBy) ?? 'Former user' } : null;
  }
  return rows;
}
