import type { RequestHandler } from 'express';
import type { TMode } from '../core/config';
import { db } from '../core/db/db';

export function handleHealth(mode: TMode): RequestHandler {
  return async (_req, res) => {
    try {
      await db().query('SELECT 1');
      res.json({ ok: true, mode, db: 'up' });
    } catch {
      res.status(503).json({ ok: false, mode, db: 'down' });
    }
  };
}
