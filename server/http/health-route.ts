import type { RequestHandler } from 'express';
import type { Sequelize } from 'sequelize';
import type { TMode } from '../core/config';

export function handleHealth(sequelize: Sequelize, mode: TMode): RequestHandler {
  return async (_req, res) => {
    try {
      await sequelize.query('SELECT 1');
      res.json({ ok: true, mode, db: 'up' });
    } catch {
      res.status(503).json({ ok: false, mode, db: 'down' });
    }
  };
}
