import { createHash, randomBytes } from 'node:crypto';
import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyAuditChain } from '../../server/audit/audit-chain';
import { createUser } from '../../server/auth/users';
import { TRAILER_LENGTH, type TBackupManifest } from '../../server/backup/backup-format';
import { MIGRATION_NAMES } from '../../server/core/db/migrate';
import { createSequelize } from '../../server/core/db/sequelize';
import { loadConfig } from '../../server/core/config';
import { createLogger } from '../../server/core/logger';
import { startServer } from '../../server/app/start-server';
import { runScript, startAppProcess } from '../support/app-process';
import { backupKeyFor, sealBackup, unsealBackup } from '../support/backup-files';
import { createEmptyTestDatabase, createTestDatabase, type TTestDatabase } from '../support/test-database';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sql, textMessage, WEBHOOK_SECRET } from '../support/webhook';

// npm run backup / restore (server/backup/README.md "Backup and restore"), run as the operator runs them: child
// processes against real databases. A restored copy must equal its source row for row, file bytes
// and trail hashes included; a damaged or foreign backup, or a target that is not empty, is refused
// with the target left as it was.

const silent = createLogger('silent');
let scratch: string;
const dropLater: TTestDatabase[] = [];

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-backup-'));
  await chmod(scratch, 0o755);
});
afterAll(async () => {
  await Promise.all(dropLater.map((d) => d.drop()));
  await rm(scratch, { recursive: true, force: true });
});

/** Environment for a script against `database`: requests as the lesser role, the owner for schema and maintenance. */
const envFor = (database: { url: string; requestUrl: string }): NodeJS.ProcessEnv => ({
  ...process.env,
  DATABASE_URL: database.requestUrl,
  DATABASE_OWNER_URL: database.url,
  LOG_LEVEL: 'warn',
});

async function emptyTarget(): Promise<TTestDatabase> {
  const database = await createEmptyTestDatabase();
  dropLater.push(database);
  return database;
}

const backupFile = (name: string) => path.join(scratch, `${name}.fcb`);

async function listTables(url: string): Promise<string[]> {
  const rows = await sql<{ name: string }>(url, `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' ORDER BY 1`);
  return rows.map((r) => r.name);
}

/** Per table: its row count and an MD5 over every row's text, in a fixed order. */
async function fingerprint(url: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const table of await listTables(url)) {
    const [row] = await sql<{ n: string; md5: string }>(
      url,
      `SELECT count(*)::text AS n, md5(coalesce(string_agg(t::text, E'\\n' ORDER BY t::text), '')) AS md5 FROM "${table}" t`,
    );
    result[table] = `${row!.n} ${row!.md5}`;
  }
  return result;
}

async function verifyTrail(url: string) {
  const sequelize = createSequelize(url, silent, { poolMax: 1, unbounded: true });
  try {
    return await verifyAuditChain(sequelize);
  } finally {
    await sequelize.close();
  }
}

/** chat_threads as its maintenance function rebuilds it from the records, compared with what is stored: the rows that differ. */
async function threadsDisagreeing(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query('CREATE TEMP TABLE stored ON COMMIT DROP AS SELECT * FROM chat_threads');
    await client.query(
      `SELECT chat_threads_recompute(k) FROM (SELECT DISTINCT chat_thread_key(client_id, peer_phone) AS k FROM communications WHERE type = 'chat') x`,
    );
    const { rows } = await client.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM ((TABLE stored EXCEPT TABLE chat_threads) UNION ALL (TABLE chat_threads EXCEPT TABLE stored)) d',
    );
    return rows[0]!.n;
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    await client.end();
  }
}

describe('a round trip: backup, then restore into an empty database', () => {
  let server: TTestServer;
  let source: { url: string; requestUrl: string };
  const FILE = randomBytes(700_000); // several chunks of attachment_chunks
  let attachmentId: number;

  beforeAll(async () => {
    server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
    source = { url: server.databaseUrl, requestUrl: server.database.url };
    await createUser({ email: 'dee@firm.test', name: 'Dee Director', role: 'director', password: 'director-password' });
    const { client, jar } = createHttpClient(server.url);
    await client.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' }); // audited
    await client.clients.create.mutate({ name: 'Amelia Hart', phone: '+44 7700 900123' });
    for (let i = 0; i < 5; i++) {
      const from = i % 2 ? '447700900123' : '447700900999';
      const res = await postWebhook(
        server.url,
        cloudPayload({ messages: [textMessage(`wamid.round.${i}`, from, `message ${i} — ünïcode ✓`)] }),
      );
      expect(res.status).toBe(200);
    }
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(FILE)], { type: 'application/pdf' }), 'Bundle.pdf');
    const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const uploaded = await fetch(`${server.url}/api/media`, { method: 'POST', body: form, headers: { cookie } });
    expect(uploaded.status).toBe(200);
    attachmentId = ((await uploaded.json()) as { attachmentId: number }).attachmentId;
  });
  afterAll(() => server?.stop());

  // pg_dump, a restore and a second server: ~20 s alone, CPU-bound (the limit is for a hang).
  it('restores every table row for row, the trail verifies, and a file downloads byte for byte from a server on the copy', async () => {
    const file = backupFile('round-trip');
    const backup = await runScript('server/scripts/backup.ts', envFor(source), [file]);
    expect(backup.code, backup.output).toBe(0);
    // The newest migration's name: the schema the backup was taken at.
    expect(backup.output).toMatch(new RegExp(`Backup written and verified: .* schema ${MIGRATION_NAMES.at(-1)!}`));
    expect(backup.output).toMatch(/backup: attachment_chunks: \d+ rows/); // progress on stderr

    const target = await emptyTarget();
    const restore = await runScript('server/scripts/restore.ts', envFor(target), [file]);
    expect(restore.code, restore.output).toBe(0);
    expect(restore.output).toContain('the trail verifies');

    const [before, after] = await Promise.all([fingerprint(source.url), fingerprint(target.url)]);
    expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
    expect(after).toEqual(before);
    expect(Number(before.audit_events!.split(' ')[0])).toBeGreaterThan(0);
    expect(Number(before.attachment_chunks!.split(' ')[0])).toBeGreaterThan(1);
    const trail = await verifyTrail(target.url);
    expect(trail.ok, trail.problem).toBe(true);
    expect(trail.head).toEqual(await verifyTrail(source.url).then((t) => t.head));

    // The app runs on the copy as it ran on the source: no migration to do, the request role may
    // read, sequences continue past the restored ids, and the file's bytes are the same.
    const copy = await startServer(
      loadConfig({ LOG_LEVEL: 'silent', DATABASE_URL: target.requestUrl, DATABASE_OWNER_URL: target.url, PORT: '0' }),
      silent,
    );
    try {
      const { client, jar } = createHttpClient(copy.url);
      await client.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
      const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
      const res = await fetch(`${copy.url}/api/media/${attachmentId}`, { headers: { cookie } });
      expect(res.status).toBe(200);
      expect(Buffer.from(await res.arrayBuffer()).equals(FILE)).toBe(true);
      const created = await client.clients.create.mutate({ name: 'Benedict Okafor', phone: '+44 7700 900456' });
      const [max] = await sql<{ max: number }>(source.url, 'SELECT max(id)::int AS max FROM clients');
      expect(created.id).toBeGreaterThan(max!.max);
      const afterSignIn = await verifyTrail(target.url); // the copy's own new events chain onto the restored head
      expect(afterSignIn.ok, afterSignIn.problem).toBe(true);
      expect(afterSignIn.rows).toBeGreaterThan(trail.rows);
    } finally {
      await copy.close();
    }
  }, 120_000);

  describe('refusals leave the target as it was', () => {
    let good: string;
    beforeAll(async () => {
      good = backupFile('refusals');
      const backup = await runScript('server/scripts/backup.ts', envFor(source), [good]);
      expect(backup.code, backup.output).toBe(0);
    });

    /** The manifest and where it starts (format: server/backup/backup-format.ts). */
    function splitManifest(bytes: Buffer) {
      const length = bytes.readUInt32BE(bytes.length - TRAILER_LENGTH + 32);
      const start = bytes.length - TRAILER_LENGTH - length;
      const manifest = JSON.parse(bytes.subarray(start, start + length).toString('utf8')) as TBackupManifest;
      return { manifest, start };
    }

    /** Rewrites the manifest (and the trailer's hash of it), as a newer or damaged program of this firm might have written it. */
    async function withManifest(name: string, change: (manifest: TBackupManifest) => void): Promise<string> {
      const key = backupKeyFor(envFor(source));
      const bytes = await unsealBackup(good, key);
      const { manifest, start } = splitManifest(bytes);
      change(manifest);
      const json = Buffer.from(JSON.stringify(manifest));
      const trailer = Buffer.from(bytes.subarray(bytes.length - TRAILER_LENGTH));
      createHash('sha256').update(json).digest().copy(trailer, 0);
      trailer.writeUInt32BE(json.length, 32);
      const file = backupFile(name);
      await sealBackup(Buffer.concat([bytes.subarray(0, start), json, trailer]), file, key);
      return file;
    }

    it('a part with one byte flipped (sealed again by the firm key): refused before anything is created', async () => {
      const key = backupKeyFor(envFor(source));
      const bytes = await unsealBackup(good, key);
      const { manifest } = splitManifest(bytes);
      const part = manifest.parts.find((p) => p.table === 'attachment_chunks')!;
      const at = part.offset + 4 + Math.floor(part.bytes / 2); // inside the first frame's payload
      bytes[at] = bytes[at]! ^ 0xff;
      const file = backupFile('flipped');
      await sealBackup(bytes, file, key);
      const target = await emptyTarget();
      const restore = await runScript('server/scripts/restore.ts', envFor(target), [file]);
      expect(restore.code).not.toBe(0);
      expect(restore.output).toMatch(/Restore refused: Part attachment_chunks is damaged/);
      expect(await listTables(target.url)).toEqual([]);
    });

    it('a backup whose schema names a migration the code does not know: refused, saying so', async () => {
      const file = await withManifest('newer', (m) => {
        m.migrations = [...m.migrations, '0099-from-the-future'];
        m.schemaVersion = '0099-from-the-future';
      });
      const target = await emptyTarget();
      const restore = await runScript('server/scripts/restore.ts', envFor(target), [file]);
      expect(restore.code).not.toBe(0);
      expect(restore.output).toContain(
        'is newer than this version of Firm Chat knows (its migration 0099-from-the-future is not in the code',
      );
      expect(await listTables(target.url)).toEqual([]);
    });

    it('a target that already has tables: refused, and its rows are untouched', async () => {
      const target = await createTestDatabase();
      dropLater.push(target);
      const before = await fingerprint(target.url);
      const restore = await runScript('server/scripts/restore.ts', envFor(target), [good]);
      expect(restore.code).not.toBe(0);
      expect(restore.output).toMatch(/already has \d+ table\(s\): restore only into an empty database/);
      expect(await fingerprint(target.url)).toEqual(before);
    });

    it('a failure while loading (a part holds other rows than the manifest says) rolls back and undoes the schema', async () => {
      const file = await withManifest('wrong-count', (m) => {
        const part = m.parts.find((p) => p.table === 'communications')!;
        part.rows += 1;
      });
      const target = await emptyTarget();
      const restore = await runScript('server/scripts/restore.ts', envFor(target), [file]);
      expect(restore.code).not.toBe(0);
      expect(restore.output).toMatch(/Table communications holds \d+ rows after loading, the backup says \d+/);
      expect(await listTables(target.url)).toEqual([]);
      const [functions] = await sql<{ n: number }>(
        target.url,
        `SELECT count(*)::int AS n FROM pg_proc WHERE pronamespace = 'public'::regnamespace`,
      );
      expect(functions!.n).toBe(0);
    });
  });
});

describe('a backup taken while deliveries arrive', () => {
  let server: TTestServer;
  beforeAll(async () => {
    server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
  });
  afterAll(() => server?.stop());

  // ~15 s alone, CPU-bound (the limit is for a hang).
  it('holds every delivery answered before it started, and the copy agrees with itself', async () => {
    const completed: { id: string; at: number }[] = [];
    let running = true;
    let n = 0;
    // Two senders, as the provider retries and delivers in parallel.
    const sender = async (lane: number) => {
      while (running) {
        const id = `wamid.live.${lane}.${n++}`;
        const from = `4477009${String(lane).padStart(2, '0')}${String(n % 50).padStart(3, '0')}`;
        const res = await postWebhook(server.url, cloudPayload({ messages: [textMessage(id, from, `delivery ${id}`)] }));
        if (res.status === 200) completed.push({ id, at: Date.now() });
      }
    };
    const senders = [sender(1), sender(2)];
    while (completed.length < 30) await new Promise((resolve) => setTimeout(resolve, 20));

    const startedAt = Date.now();
    const file = backupFile('during-deliveries');
    const source = { url: server.databaseUrl, requestUrl: server.database.url };
    const backup = await runScript('server/scripts/backup.ts', envFor(source), [file]);
    const endedAt = Date.now();
    running = false;
    await Promise.all(senders);
    expect(backup.code, backup.output).toBe(0);

    const before = completed.filter((d) => d.at < startedAt).map((d) => d.id);
    const during = completed.filter((d) => d.at >= startedAt && d.at < endedAt);
    expect(before.length).toBeGreaterThanOrEqual(30);
    expect(during.length).toBeGreaterThan(0); // the server went on storing while the backup ran

    const target = await emptyTarget();
    const restore = await runScript('server/scripts/restore.ts', envFor(target), [file]);
    expect(restore.code, restore.output).toBe(0);
    const stored = new Set(
      (
        await sql<{ id: string }>(target.url, "SELECT metadata->>'chat_msg_id' AS id FROM communications WHERE metadata ? 'chat_msg_id'")
      ).map((r) => r.id),
    );
    expect(before.filter((id) => !stored.has(id))).toEqual([]);
    expect(await threadsDisagreeing(target.url)).toBe(0);
    const [orphans] = await sql<{ n: number }>(
      target.url,
      `SELECT count(*)::int AS n FROM conversation_states s WHERE NOT EXISTS (SELECT FROM chat_threads t WHERE t.thread_key = s.thread_key)`,
    );
    expect(orphans!.n).toBe(0);
    const trail = await verifyTrail(target.url);
    expect(trail.ok, trail.problem).toBe(true);
  }, 120_000);
});

describe('the embedded default: npm start running on its DATA_DIR', () => {
  it('backs up from the running server, restores into an empty DATA_DIR, and audit:verify passes there', { timeout: 240_000 }, async () => {
    const dataDir = path.join(scratch, 'running');
    const emptyDir = path.join(scratch, 'restored');
    const app = await startAppProcess({ dataDir: await mkdtempReadable(dataDir) });
    const file = backupFile('embedded');
    const embeddedEnv = (dir: string) => ({ ...process.env, DATABASE_URL: '', DATABASE_OWNER_URL: '', DATA_DIR: dir, LOG_LEVEL: 'warn' });
    try {
      const backup = await runScript('server/scripts/backup.ts', embeddedEnv(dataDir), [file]);
      expect(backup.code, backup.output).toBe(0);
      expect(backup.output).toContain("copying from the running server's database");
      expect((await fetch(`${app.url}/api/health`)).ok).toBe(true); // the server was neither stopped nor disturbed

      const refused = await runScript('server/scripts/restore.ts', embeddedEnv(dataDir), [file]);
      expect(refused.code).not.toBe(0);
      expect(refused.output).toMatch(/A Firm Chat server \(pid \d+\) is running on/);
    } finally {
      await app.stop();
    }
    await mkdtempReadable(emptyDir);
    // The backup is sealed with a key derived from the firm's signing key, which lives beside the DATA_DIR it was made for.
    const restore = await runScript(
      'server/scripts/restore.ts',
      { ...embeddedEnv(emptyDir), SIGNING_KEY_FILE: `${dataDir}-signing-key.pem` },
      [file],
    );
    expect(restore.code, restore.output).toBe(0);
    // The trail's checkpoints are checked with that key too (server/audit/audit-checkpoints.ts).
    const verify = await runScript('server/scripts/verify-audit.ts', {
      ...embeddedEnv(emptyDir),
      SIGNING_KEY_FILE: `${dataDir}-signing-key.pem`,
    });
    expect(verify.code, verify.output).toBe(0);
    expect(verify.output).toMatch(/The trail verifies: [\d,]+ events/);
  });
});

async function mkdtempReadable(dir: string): Promise<string> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  await chmod(dir, 0o755); // the unprivileged user PostgreSQL runs as under root must enter it
  return dir;
}
