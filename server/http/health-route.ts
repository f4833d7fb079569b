import type { RequestHandler } from 'express';
import type { TMode } from '../core/config';
import { db } from '../core/db/db';

/** `sso`: single sign-on is configured, so the sign-in page offers it. */
export function handleHealth(mode: TMode, sso = false): RequestHandler {
  return async (_req, res) => {
    try {
      await db().query('SELECT 1');
      res.json({ ok: true, mode, db: 'up', sso });
    } catch {
      res.status(503).json({ ok: false, mode, db: 'down', sso });
    }
  };
}
