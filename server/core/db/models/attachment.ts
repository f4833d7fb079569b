import { DataTypes, Model, type CreationOptional, type InferAttributes, type InferCreationAttributes, type Sequelize } from 'sequelize';
import type { TAttachment, TAttachmentKind, TAttachmentState } from '../../../../shared/communication';

/** A file on a chat record (see migration 0008); its bytes are in attachment_chunks. */
export class Attachment extends Model<InferAttributes<Attachment>, InferCreationAttributes<Attachment>> {
  declare id: CreationOptional<number>;
  declare communicationId: number | null;
  declare kind: TAttachmentKind;
  declare providerMediaId: CreationOptional<string | null>;
  declare mimeType: string;
  declare fileName: CreationOptional<string | null>;
  declare size: CreationOptional<number | null>;
  declare sha256: CreationOptional<string | null>;
  declare state: TAttachmentState;
  declare error: CreationOptional<string | null>;
  /** When retention or an erasure request deleted its bytes and name (server/records/README.md "Records"). */
  declare erasedAt: CreationOptional<Date | null>;
  declare uploadedBy: CreationOptional<number | null>;
  declare nextAttemptAt: CreationOptional<Date | null>;
  declare createdAt: CreationOptional<Date>;

  static initModel(sequelize: Sequelize) {
    Attachment.init(
      {
        id: { type: DataTypes.INTEGER, autoIncrement: true, primaryKey: true },
        communicationId: { type: DataTypes.INTEGER, allowNull: true },
        kind: { type: DataTypes.TEXT, allowNull: false },
        providerMediaId: { type: DataTypes.TEXT, allowNull: true },
        mimeType: { type: DataTypes.TEXT, allowNull: false },
        fileName: { type: DataTypes.TEXT, allowNull: true },
        // bigint arrives as a number (server/core/db/sequelize.ts parses INT8; files stay far below 2^53).
        size: { type: DataTypes.BIGINT, allowNull: true },
        sha256: { type: DataTypes.TEXT, allowNull: true },
        state: { type: DataTypes.TEXT, allowNull: false },
        error: { type: DataTypes.TEXT, allowNull: true },
        erasedAt: { type: DataTypes.DATE, allowNull: true },
        uploadedBy: { type: DataTypes.INTEGER, allowNull: true },
        nextAttemptAt: { type: DataTypes.DATE, allowNull: true },
        createdAt: DataTypes.DATE,
      },
      { sequelize, tableName: 'attachments', updatedAt: false },
    );
  }

  toDto(): TAttachment {
    return {
      id: this.id,
      kind: this.kind,
      mimeType: this.mimeType,
      fileName: this.fileName ?? null,
      size: this.size === null || this.size === undefined ? null : Number(this.size),
      state: this.state,
      error: this.error ?? null,
      nextAttemptAt: this.state === 'pending' && this.error ? (this.nextAttemptAt ?? null) : null,
      // Only on an erased file: every other keeps the shape it always had.
      ...(this.erasedAt ? { erasedAt: this.erasedAt } : {}),
    };
  }
}
