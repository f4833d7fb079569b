import type { Sequelize } from 'sequelize';
import { ATTACHMENT_KINDS } from '../../../shared/communication';
import { Attachment } from './attachment';
import { Case } from './case';
import { Client } from './client';
import { ClientNumber } from './client-number';
import { Communication } from './communication';
import { Session } from './session';
import { User } from './user';

export { Attachment, Case, Client, ClientNumber, Communication, Session, User };

export function initModels(sequelize: Sequelize) {
  for (const model of [User, Session, Client, ClientNumber, Case, Communication, Attachment]) model.initModel(sequelize);
  Client.hasMany(ClientNumber, { as: 'numbers', foreignKey: 'clientId' });
  ClientNumber.belongsTo(User, { as: 'addedByUser', foreignKey: 'addedBy' });
  Communication.hasMany(Attachment, { as: 'attachments', foreignKey: 'communicationId' });
}

const FILE_KINDS = new Set<string>(ATTACHMENT_KINDS);

/**
 * Puts their files on the records that have any (one query for the page; none when no record on it
 * is a file message, which is most pages: every writer of a file sets `metadata.kind` to its kind).
 */
export async function withAttachments<T extends Communication>(rows: T[]): Promise<T[]> {
  const ids = rows.filter((row) => FILE_KINDS.has(row.metadata?.kind ?? 'text')).map((row) => row.id);
  const files = ids.length ? await Attachment.findAll({ where: { communicationId: ids }, order: [['id', 'ASC']] }) : [];
  const byRecord = new Map<number, Attachment[]>();
  for (const file of files) byRecord.set(file.communicationId!, [...(byRecord.get(file.communicationId!) ?? []), file]);
  for (const row of rows) row.attachments = byRecord.get(row.id) ?? [];
  return rows;
}
