import {
  DataTypes,
  Model,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type NonAttribute,
  type Sequelize,
} from 'sequelize';
import type { TChatStatus, TCommunication, TCommunicationType, TDirection, TReceiptHistory } from '../../../../shared/communication';
import type { Attachment } from './attachment';

export class Communication extends Model<
  InferAttributes<Communication, { omit: 'attachments' | 'sender' }>,
  InferCreationAttributes<Communication, { omit: 'attachments' | 'sender' }>
> {
  declare id: CreationOptional<number>;
  declare type: TCommunicationType;
  declare direction: TDirection | null;
  declare subject: CreationOptional<string | null>;
  declare body: string;
  declare status: TChatStatus | null;
  declare error: CreationOptional<string | null>;
  declare clientId: number | null;
  declare caseId: CreationOptional<number | null>;
  declare peerPhone: CreationOptional<string | null>;
  /** The firm's number it went through (migration 0040: number 1 by default). */
  declare firmNumberId: CreationOptional<number>;
  declare metadata: CreationOptional<TCommunication['metadata']>;
  declare receipts: CreationOptional<TReceiptHistory>;
  declare providerTimestamp: CreationOptional<Date | null>;
  declare readAt: CreationOptional<Date | null>;
  /** The member of staff who sent an outbound record from this app. */
  declare sentBy: CreationOptional<number | null>;
  declare createdAt: CreationOptional<Date>;
  declare updatedAt: CreationOptional<Date>;
  /** Added to by PostgreSQL on every UPDATE of the row and every shown change to its files (migration 0024); never written here. */
  declare version: CreationOptional<number>;
  /** Loaded with `include: ATTACHMENTS`; absent means none were loaded. */
  declare attachments?: NonAttribute<Attachment[]>;
  /** Loaded with the records (`withDetails`); absent means not loaded. */
  declare sender?: NonAttribute<{ id: number; name: string } | null>;

  static initModel(sequelize: Sequelize) {
    Communication.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        type: { type: DataTypes.TEXT, allowNull: false },
        direction: { type: DataTypes.TEXT, allowNull: true },
        subject: { type: DataTypes.TEXT, allowNull: true },
        body: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
        status: { type: DataTypes.TEXT, allowNull: true },
        error: { type: DataTypes.TEXT, allowNull: true },
        clientId: { type: DataTypes.INTEGER, allowNull: true },
        caseId: { type: DataTypes.INTEGER, allowNull: true },
        peerPhone: { type: DataTypes.TEXT, allowNull: true },
        firmNumberId: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 1 },
        metadata: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        receipts: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
        providerTimestamp: { type: DataTypes.DATE, allowNull: true },
        readAt: { type: DataTypes.DATE, allowNull: true },
        sentBy: { type: DataTypes.INTEGER, allowNull: true },
        createdAt: DataTypes.DATE,
        updatedAt: DataTypes.DATE,
        // bigint arrives as a number (server/core/db/sequelize.ts parses INT8).
        version: { type: DataTypes.BIGINT, allowNull: true },
      },
      { sequelize, tableName: 'communications' },
    );
  }

  /** The API shape (`TCommunication`, shared/communication.ts). */
  toDto(): TCommunication {
    return communicationDtoOf(this);
  }
}

/** A record's columns as plain values — a model instance, or a row read raw (a page) — with its details when loaded. */
export type TCommunicationRecord = InferAttributes<Communication, { omit: 'attachments' | 'sender' }> &
  Pick<Communication, 'attachments' | 'sender'>;

/** The API shape (`TCommunication`, shared/communication.ts) of a record. */
export function communicationDtoOf(record: TCommunicationRecord): TCommunication {
  return {
    id: record.id,
    type: record.type,
    direction: record.direction,
    subject: record.subject ?? null,
    body: record.body,
    status: record.status,
    error: record.error ?? null,
    clientId: record.clientId,
    caseId: record.caseId ?? null,
    peerPhone: record.peerPhone ?? null,
    firmNumberId: record.firmNumberId ?? 1,
    metadata: record.metadata ?? {},
    providerTimestamp: record.providerTimestamp ?? null,
    createdAt: record.createdAt,
    version: Number(record.version),
    attachments: (record.attachments ?? []).map((a) => a.toDto()).sort((a, b) => a.id - b.id),
    sentBy: record.sender ?? null,
  };
}
