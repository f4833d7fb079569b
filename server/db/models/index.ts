import type { Sequelize } from 'sequelize';
import { Case } from './case';
import { Client } from './client';
import { Communication } from './communication';
import { Session } from './session';
import { User } from './user';

export { Case, Client, Communication, Session, User };

export function initModels(sequelize: Sequelize) {
  for (const model of [User, Session, Client, Case, Communication]) model.initModel(sequelize);
}
