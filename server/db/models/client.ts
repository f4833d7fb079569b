import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Client extends Model<InferAttributes<Client>, InferCreationAttributes<Client>> {
  declare id: CreationOptional<number>;
  declare name: string;
  /** As entered, for display. */
  declare phone: string;
  declare phoneDigits: string;
  /** Last 9 digits: the inbound match key (SPEC §8). */
  declare phoneLast9: string;
  declare email: string | null;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize) {
    Client.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        name: { type: DataTypes.TEXT, allowNull: false },
        phone: { type: DataTypes.TEXT, allowNull: false },
        phoneDigits: { type: DataTypes.TEXT, allowNull: false },
        phoneLast9: { type: DataTypes.TEXT, allowNull: false, field: 'phone_last9' },
        email: { type: DataTypes.TEXT, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'clients' },
    );
  }
}
