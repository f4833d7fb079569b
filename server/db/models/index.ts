import type { Sequelize } from 'sequelize';
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

/** Loads a record's attachments in one extra query for the whole page (no JOIN under a LIMIT). */
export const INCLUDE_ATTACHMENTS = [{ association: 'attachments', separate: true }];
