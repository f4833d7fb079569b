import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type NonAttribute,
  type Sequelize,
} from 'sequelize';
import type { ClientNumber } from './client-number';

export class Client extends Model<InferAttributes<Client, { omit: 'numbers' }>, InferCreationAttributes<Client, { omit: 'numbers' }>> {
  declare id: CreationOptional<number>;
  declare name: string;
  declare email: string | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  /** Loaded with `include: 'numbers'`. */
  declare numbers?: NonAttribute<ClientNumber[]>;

  static initModel(sequelize: Sequelize) {
    Client.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        name: { type: DataTypes.TEXT, allowNull: false },
        email: { type: DataTypes.TEXT, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'clients' },
    );
  }
}
