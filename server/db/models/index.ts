import type { Sequelize } from 'sequelize';
import { Case } from './case';
import { Client } from './client';
import { ClientNumber } from './client-number';
import { Communication } from './communication';
import { Session } from './session';
import { User } from './user';

export { Case, Client, ClientNumber, Communication, Session, User };

export function initModels(sequelize: Sequelize) {
  for (const model of [User, Session, Client, ClientNumber, Case, Communication]) model.initModel(sequelize);
  Client.hasMany(ClientNumber, { as: 'numbers', foreignKey: 'clientId' });
  ClientNumber.belongsTo(User, { as: 'addedByUser', foreignKey: 'addedBy' });
}
