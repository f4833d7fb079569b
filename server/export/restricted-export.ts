import type { Response } from 'express';
import { secondFactorOf } from '../auth';
import { queryRows, sql } from '../core/sql';
import { REAUTH_MESSAGE, STEP_UP_WINDOW_MS } from '../trpc/init';
import type { TExportScope } from './read-export';

// An export of a restricted matter asks for a recent second-factor proof (server/auth/README.md
// "Step-up and the firm's policy"). A client's export holds its cases' messages, and a case's its
// client's name: either one restricted makes the export one of a restricted matter.

async function isRestrictedMatter(scope: TExportScope): Promise<boolean> {
  const [row] = await queryRows<{ restricted: boolean }>(
    scope.type === 'client'
      ? sql`SELECT c.restricted OR EXISTS (SELECT 1 FROM cases k WHERE k.client_id = c.id AND k.restricted) AS restricted
            FROM clients c WHERE c.id = ${scope.id}`
      : sql`SELECT k.restricted OR c.restricted AS restricted FROM cases k JOIN clients c ON c.id = k.client_id WHERE k.id = ${scope.id}`,
  );
  return row?.restricted ?? false;
}

/** True when it answered 403 with `reauth: true` (the export waits for a step-up); false: go on. */
export async function refuseWithoutStepUp(res: Response, scope: TExportScope, now: Date): Promise<boolean> {
  const factor = secondFactorOf(res);
  if (!factor.has) return false;
  if (factor.provenAt && now.getTime() - factor.provenAt.getTime() < STEP_UP_WINDOW_MS) return false;
  if (!(await isRestrictedMatter(scope))) return false;
  res.status(403).json({ error: { code: 'FORBIDDEN', message: REAUTH_MESSAGE, reauth: true } });
  return true;
}
