import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';

export class Case extends Model<InferAttributes<Case>, InferCreationAttributes<Case>> {
  declare id: CreationOptional<number>;
  declare clientId: number;
  declare reference: string;
  declare title: string;
  declare status: CreationOptional<'open' | 'closed'>;
  /** Only its members see it (server/access/README.md "Ethical walls"). */
  declare restricted: CreationOptional<boolean>;
  /** When it was last closed (a trigger keeps it): retention counts from here (server/records/README.md "Records"). */
  declare closedAt: CreationOptional<Date | null>;
  /** When retention or an erasure request erased its title. */
  declare erasedAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize) {
    Case.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        clientId: { type: DataTypes.INTEGER, allowNull: false },
        reference: { type: DataTypes.TEXT, allowNull: false, unique: true },
        title: { type: DataTypes.TEXT, allowNull: false },
        status: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'open' },
        restricted: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
        closedAt: { type: DataTypes.DATE, allowNull: true },
        erasedAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'cases' },
    );
  }
}
