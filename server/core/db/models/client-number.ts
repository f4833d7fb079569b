import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type NonAttribute,
  type Sequelize,
} from 'sequelize';
import type { User } from './user';

/** One of a client's chat numbers, E.164 digits; inbound messages are matched on these. */
export class ClientNumber extends Model<
  InferAttributes<ClientNumber, { omit: 'addedByUser' }>,
  InferCreationAttributes<ClientNumber, { omit: 'addedByUser' }>
> {
  declare id: CreationOptional<number>;
  declare clientId: number;
  declare digits: string;
  declare primary: boolean;
  /** 'link': linked from the inbox (inbox.unlink may undo it); 'client': given on the client file. */
  declare addedVia: CreationOptional<'client' | 'link'>;
  declare addedBy: number | null;
  declare addedAt: CreationOptional<Date>;
  declare addedByUser?: NonAttribute<User | null>;

  static initModel(sequelize: Sequelize) {
    ClientNumber.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        clientId: { type: DataTypes.INTEGER, allowNull: false, field: 'client_id' },
        digits: { type: DataTypes.TEXT, allowNull: false },
        primary: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        addedVia: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'client', field: 'added_via' },
        addedBy: { type: DataTypes.INTEGER, allowNull: true, field: 'added_by' },
        addedAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW, field: 'added_at' },
      },
      { sequelize, tableName: 'client_numbers', timestamps: false },
    );
  }
}
