import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkpointHead, checkpointText, type TCheckpoint } from '../../server/audit/audit-checkpoints';
import { scheduleAuditCheckpoints } from '../../server/audit/checkpoint-schedule';
import { createLogger } from '../../server/core/logger';
import { createClient } from '../../server/crm/clients';
import { signingKeyFromPem } from '../../server/signing';
import { runScript } from '../support/app-process';
import { firmKey, firmKeyFile as keyFile, startCheckpointSetup } from '../support/checkpoint-setup';
import type { TLiveSetup } from '../support/live-setup';
import { rewriteEventAsOwner, runStatementsAs, verifyTrailAs } from '../support/records';
import { sql } from '../support/sql';

// Signed checkpoints of the trail (server/audit/audit-checkpoints.ts, server/decisions/0023-signing-key.md): the head
// signed with the firm's key each minute it moved and at every export; a rewrite that recomputes every
// hash after it, made by the database's owner, is found; a checkpoint signed by another key is a finding.
// The server's own minute job is given an hour here: the interval is exercised by a job of the test's own.
let live: TLiveSetup;
beforeAll(async () => {
  live = await startCheckpointSetup();
});
afterAll(() => live?.stop());

const otherKey = () => signingKeyFromPem(generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString());

type TRow = { id: string; event_id: string; event_hash: string; key_fingerprint: string };
const checkpoints = () =>
  sql<TRow>(live.server.databaseUrl, 'SELECT id::text, event_id::text, event_hash, key_fingerprint FROM audit_checkpoints c ORDER BY c.id');
const head = async () =>
  (
    await sql<{ id: string; hash: string }>(live.server.databaseUrl, 'SELECT last_id::text AS id, last_hash AS hash FROM audit_chain_head')
  )[0]!;
/** Something on the trail, so the head moves. */
const moveHead = () => live.director.settings.checkConnection.mutate();

const verifyScript = () =>
  runScript('server/scripts/verify-audit.ts', {
    ...process.env,
    DATABASE_URL: live.server.requestDatabaseUrl,
    DATABASE_OWNER_URL: live.server.databaseUrl,
    SIGNING_KEY_FILE: keyFile,
    LOG_LEVEL: 'warn',
  });

/** A checkpoint of the head now, signed by `key` and appended as the request role would (it may append, not sign). */
async function appendCheckpointSignedBy(key: ReturnType<typeof otherKey>, fingerprint = key.fingerprint): Promise<number> {
  const { id, hash } = await head();
  const at = new Date();
  const signature = key.sign(
    checkpointText({ eventId: Number(id), eventHash: hash, at, keyFingerprint: fingerprint, version: 1, prev: null }),
  );
  await runStatementsAs(live.server.requestDatabaseUrl, [
    `INSERT INTO audit_checkpoints (event_id, event_hash, at, key_fingerprint, signature)
     VALUES (${id}, '${hash}', '${at.toISOString()}', '${fingerprint}', '${signature}')`,
  ]);
  const [row] = await sql<{ id: string }>(live.server.databaseUrl, 'SELECT id::text FROM audit_checkpoints WHERE event_id = $1', [id]);
  return Number(row!.id);
}

describe('making checkpoints', () => {
  it('signs the head right after an export is recorded, under the firm key', async () => {
    const client = await createClient({ name: 'Amelia Hart', phone: '+447700900123' });
    const res = await fetch(`${live.server.url}/api/export/client/${client.id}.json`, { headers: { cookie: live.staffCookie } });
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    // The export's event is recorded before its last byte, and its checkpoint signed before that byte too.
    const [exported] = await sql<{ id: string; hash: string }>(
      live.server.databaseUrl,
      "SELECT id::text, hash FROM audit_events WHERE action = 'export.create' ORDER BY id DESC LIMIT 1",
    );
    const signed = (await checkpoints()).find((c) => c.event_id === exported!.id);
    expect(signed).toMatchObject({ event_hash: exported!.hash, key_fingerprint: firmKey().fingerprint });
  });

  it('signs the head each interval it moved, and makes none when it did not', async () => {
    const runs: (TCheckpoint | null)[] = [];
    const stop = scheduleAuditCheckpoints(
      { logger: createLogger('silent'), signingKey: firmKey() },
      { intervalMs: 25, onRun: (m) => runs.push(m) },
    );
    try {
      await moveHead();
      const moved = await head();
      await vi.waitFor(async () => expect((await checkpoints()).map((c) => c.event_id)).toContain(moved.id), {
        timeout: 10_000,
        interval: 25,
      });
      const before = (await checkpoints()).length;
      const seen = runs.length;
      await vi.waitFor(() => expect(runs.length).toBeGreaterThanOrEqual(seen + 3), { timeout: 10_000, interval: 25 });
      expect(runs.slice(seen)).toEqual(runs.slice(seen).map(() => null));
      expect((await checkpoints()).length).toBe(before);
      expect((await head()).id).toBe(moved.id);
    } finally {
      await stop();
    }
  });

  it('signs a head for which the request role appended a row nobody signed', async () => {
    const { id } = await head();
    const next = Number(id) + 2;
    await runStatementsAs(live.server.requestDatabaseUrl, [
      `INSERT INTO audit_checkpoints (event_id, event_hash, at, key_fingerprint, signature, version)
       VALUES (${next}, 'x', now(), '${firmKey().fingerprint}', 'AAAA', 2)`,
    ]);
    await moveHead();
    await moveHead();
    expect((await head()).id).toBe(String(next));
    const made = await checkpointHead(firmKey(), () => new Date());
    expect(made).toMatchObject({ eventId: next, keyFingerprint: firmKey().fingerprint });
    // The row nobody signed stays (the request role cannot remove it) and is a finding until the owner does.
    expect((await live.director.audit.verify.query()).checkpoints).toMatchObject({
      ok: false,
      problem: expect.stringMatching(/does not carry the firm's signature/) as unknown,
    });
    await sql(live.server.databaseUrl, "DELETE FROM audit_checkpoints WHERE signature = 'AAAA'");
  });

  it('lets the request role read and append checkpoints, never change or remove them', async () => {
    await expect(runStatementsAs(live.server.requestDatabaseUrl, ["UPDATE audit_checkpoints SET signature = 'x'"])).rejects.toThrow(
      /permission denied/,
    );
    await expect(runStatementsAs(live.server.requestDatabaseUrl, ['DELETE FROM audit_checkpoints'])).rejects.toThrow(/permission denied/);
    await expect(runStatementsAs(live.server.requestDatabaseUrl, ['TRUNCATE audit_checkpoints'])).rejects.toThrow(/permission denied/);
    await runStatementsAs(live.server.requestDatabaseUrl, ['SELECT count(*) FROM audit_checkpoints']);
  });
});

describe('checking checkpoints', () => {
  it('audit.verify and npm run audit:verify count them, name the newest and find them all valid', async () => {
    const stored = await checkpoints();
    expect(stored.length).toBeGreaterThanOrEqual(2);
    const check = await live.director.audit.verify.query();
    expect(check).toMatchObject({
      ok: true,
      checkpoints: { ok: true, signaturesChecked: true, count: stored.length, newest: { id: Number(stored.at(-1)!.id) } },
    });
    const script = await verifyScript();
    expect(script.code, script.output).toBe(0);
    expect(script.output).toMatch(new RegExp(`Signed checkpoints: ${stored.length}, the newest at \\S+Z \\(event #\\d+\\) — all valid\\.`));
  });

  it('a checkpoint signed by another key, under its own name or the firm’s, is a finding', async () => {
    for (const [fingerprint, problem] of [
      [undefined, /which is not the firm's/],
      [firmKey().fingerprint, /does not carry the firm's signature/],
    ] as const) {
      await moveHead();
      const forged = await appendCheckpointSignedBy(otherKey(), fingerprint);
      const check = await live.director.audit.verify.query();
      expect(check.ok).toBe(false);
      expect(check.firstBadId).toBeUndefined();
      expect(check.checkpoints).toMatchObject({ ok: false, firstBadId: forged, problem: expect.stringMatching(problem) as unknown });
      expect(check.problem).toMatch(new RegExp(`^checkpoint #${forged} `));
      // The script reads the same (its run is slow: once is enough).
      if (fingerprint === undefined) {
        const script = await verifyScript();
        expect(script.code).toBe(1);
        expect(script.output).toContain(`The trail does NOT verify at checkpoint #${forged}: checkpoint #${forged} (event #`);
      }
      await sql(live.server.databaseUrl, 'DELETE FROM audit_checkpoints WHERE id = $1', [forged]);
    }
    expect(await live.director.audit.verify.query()).toMatchObject({ ok: true, checkpoints: { ok: true } });
  });

  it('finds an early event rewritten by the owner with every later hash recomputed, naming the checkpoint', async () => {
    const [early] = await sql<{ id: string }>(
      live.server.databaseUrl,
      'SELECT id::text FROM audit_events e ORDER BY e.id LIMIT 1 OFFSET 1',
    );
    // The first checkpoint at or after it (the server's start may have signed the head after the setup's first events).
    const firstSigned = (await checkpoints()).find((c) => Number(c.event_id) >= Number(early!.id))!;
    expect(firstSigned).toBeDefined();
    // The owner edits the event, then rebuilds the chain from it with the database's own hash function and moves the head.
    await rewriteEventAsOwner(live.server.databaseUrl, early!.id);
    // The chain alone holds again: only the checkpoints show the rewrite.
    const unsigned = await verifyTrailAs(live.server.databaseUrl);
    expect(unsigned).toMatchObject({ ok: false, checkpoints: { ok: false, firstBadId: Number(firstSigned.id) } });
    expect(unsigned.firstBadId).toBeUndefined();

    const check = await live.director.audit.verify.query();
    expect(check).toMatchObject({ ok: false, checkpoints: { ok: false, firstBadId: Number(firstSigned.id) } });
    expect(check.firstBadId).toBeUndefined();
    expect(check.problem).toBe(check.checkpoints.problem);
    expect(check.problem).toMatch(
      new RegExp(
        `^checkpoint #${firstSigned.id} \\(event #${firstSigned.event_id}, signed .+\\) signed hash ${firstSigned.event_hash.slice(0, 12)}… but the trail now has [0-9a-f]{12}…: the trail was rewritten at or before event #${firstSigned.event_id}$`,
      ),
    );
    const script = await verifyScript();
    expect(script.code).toBe(1);
    expect(script.output).toContain(
      `The trail does NOT verify at checkpoint #${firstSigned.id}: checkpoint #${firstSigned.id} (event #${firstSigned.event_id}`,
    );
    expect(script.output).toMatch(/Signed checkpoints: \d+, the newest at .* — NOT valid: checkpoint #/);
  });
});
