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
  /** Only its members see it (server/access/README.md "Ethical walls"). */
  declare restricted: CreationOptional<boolean>;
  /** When retention or an erasure request erased its name and numbers (server/records/README.md "Records"). */
  declare erasedAt: CreationOptional<Date | null>;
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
        restricted: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        erasedAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'clients' },
    );
  }
}
