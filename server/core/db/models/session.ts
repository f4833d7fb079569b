import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { TSessionMethod } from '../../../../shared/session-methods';

export class Session extends Model<InferAttributes<Session>, InferCreationAttributes<Session>> {
  declare id: string;
  /** What the session is called outside the server: `id` is the cookie's keyed hash and never leaves it. */
  declare publicId: CreationOptional<string>;
  declare userId: number;
  declare expiresAt: Date;
  declare lastSeenAt: CreationOptional<Date>;
  declare ip: CreationOptional<string | null>;
  declare userAgent: CreationOptional<string | null>;
  declare method: CreationOptional<TSessionMethod>;
  declare secondFactorAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize) {
    Session.init(
      {
        id: { type: DataTypes.TEXT, primaryKey: true },
        publicId: { type: DataTypes.UUID, allowNull: false, defaultValue: DataTypes.UUIDV4 },
        userId: { type: DataTypes.INTEGER, allowNull: false },
        expiresAt: { type: DataTypes.DATE, allowNull: false },
        lastSeenAt: { type: DataTypes.DATE, allowNull: false, defaultValue: DataTypes.NOW },
        ip: { type: DataTypes.TEXT, allowNull: true },
        userAgent: { type: DataTypes.TEXT, allowNull: true },
        method: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'password' },
        secondFactorAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'sessions' },
    );
  }
}
