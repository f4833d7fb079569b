import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointRefusedError, checkpointHead } from '../../server/audit/audit-checkpoints';
import { lastCheckpointFileOf } from '../../server/audit/last-checkpoint-file';
import { firmKey, firmKeyFile as keyFile, startCheckpointSetup } from '../support/checkpoint-setup';
import type { TLiveSetup } from '../support/live-setup';
import { rewriteEventAsOwner } from '../support/records';
import { sql } from '../support/sql';

// What the database's owner cannot do to the signed checkpoints (server/audit/audit-checkpoints.ts):
// delete the newest (the signer keeps the newest it signed beside its key, outside the database),
// delete one from between others (each names the one before it), or have a rewrite signed (the
// signer checks the chain from the head it signed last before it signs another).
let live: TLiveSetup;
beforeAll(async () => {
  live = await startCheckpointSetup();
});
afterAll(() => live?.stop());

const asOwner = (text: string, bind: unknown[] = []) => sql(live.server.databaseUrl, text, bind);

/** Something on the trail, then its head signed by the firm's key; the warnings the signer heard. */
async function signNewHead(): Promise<{ eventId: number; warnings: string[] }> {
  await live.director.settings.checkConnection.mutate();
  const warnings: string[] = [];
  const made = await checkpointHead(
    firmKey(),
    () => new Date(),
    (w) => warnings.push(w),
  );
  expect(made).not.toBeNull();
  return { eventId: made!.eventId, warnings };
}

describe('checkpoints the owner deletes', () => {
  it('the newest: the copy outside the database names it, and the next checkpoint signed says it followed it', async () => {
    const first = await signNewHead();
    const second = await signNewHead();
    expect(second.warnings).toEqual([]);
    expect(existsSync(lastCheckpointFileOf(keyFile))).toBe(true);
    expect(await live.director.audit.verify.query()).toMatchObject({ ok: true, checkpoints: { ok: true } });

    await asOwner('DELETE FROM audit_checkpoints WHERE event_id = $1', [second.eventId]);
    const afterDelete = await live.director.audit.verify.query();
    expect(afterDelete.ok).toBe(false);
    expect(afterDelete.problem).toMatch(
      new RegExp(
        `^the newest checkpoint signed \\(event #${second.eventId}, .+\\), kept outside the database, is no longer stored: checkpoints were deleted$`,
      ),
    );

    // The signer says so too, and signs the next head as following the deleted one: the gap stays on record.
    const third = await signNewHead();
    expect(third.warnings).toEqual([expect.stringMatching(new RegExp(`checkpoint of event #${second.eventId}, .* is no longer stored`))]);
    const afterNext = await live.director.audit.verify.query();
    expect(afterNext.ok).toBe(false);
    expect(afterNext.problem).toMatch(
      new RegExp(
        `\\(event #${third.eventId}, .+\\) was signed after the checkpoint of event #${second.eventId}, but the one before it is of event #${first.eventId}: checkpoints were deleted$`,
      ),
    );
  });

  it('every checkpoint, after rewriting an event they signed: the signer refuses to sign the rewritten trail', async () => {
    const signed = await signNewHead();
    // The owner edits an event the checkpoints signed, rebuilds the chain from it and deletes every checkpoint.
    await rewriteEventAsOwner(live.server.databaseUrl, signed.eventId - 1);
    await asOwner('DELETE FROM audit_checkpoints');
    await live.director.settings.checkConnection.mutate();
    await expect(checkpointHead(firmKey(), () => new Date())).rejects.toThrow(CheckpointRefusedError);
    await expect(checkpointHead(firmKey(), () => new Date())).rejects.toThrow(
      new RegExp(
        `^the trail does not verify since the checkpoint of event #${signed.eventId}, at event #${signed.eventId}: the event signed last was rewritten$`,
      ),
    );
    expect(await asOwner('SELECT count(*)::int AS n FROM audit_checkpoints')).toEqual([{ n: 0 }]);
    const check = await live.director.audit.verify.query();
    expect(check.ok).toBe(false);
    expect(check.problem).toMatch(/kept outside the database, is no longer stored: checkpoints were deleted$/);
  });
});
