import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../../server/auth/users';
import { CHUNK_BYTES, SEALED_HEADER_LENGTH } from '../../server/backup/sealed-file';
import { loadSigningKey } from '../../server/signing';
import { runScript } from '../support/app-process';
import { backupKeyFor, unsealBackup } from '../support/backup-files';
import { createEmptyTestDatabase, type TTestDatabase } from '../support/test-database';
import { createHttpClient, startTestServer, type TTestServer } from '../support/test-server';
import { cloudPayload, postWebhook, sql, textMessage, WEBHOOK_SECRET } from '../support/webhook';

// A backup file is sealed (server/backup/README.md "The key", "The file"): readable by its owner only,
// nothing in it in the clear, and one that was edited, cut short, made with another key or left
// unencrypted is refused by --verify and by restore before the target is touched.

const BODY = 'Privileged: the settlement figure is 41,250 pounds';
const TAG_LENGTH = 16;
let scratch: string;
let server: TTestServer;
let env: NodeJS.ProcessEnv;
let good: string;
const dropLater: TTestDatabase[] = [];

async function emptyTarget(): Promise<TTestDatabase> {
  const database = await createEmptyTestDatabase();
  dropLater.push(database);
  return database;
}

/** What the target holds in schema public, tables and functions: a restore refused before writing leaves it as it was. */
async function objectsIn(url: string): Promise<string> {
  const [row] = await sql<{ objects: string }>(
    url,
    `SELECT (SELECT count(*) FROM pg_class WHERE relnamespace = 'public'::regnamespace)::text || ' ' ||
            (SELECT count(*) FROM pg_proc WHERE pronamespace = 'public'::regnamespace)::text AS objects`,
  );
  return row!.objects;
}

const fileIn = (name: string) => path.join(scratch, name);

/** A restore of `file` into a fresh empty database: refused, having written nothing. */
async function expectRefusedBeforeWriting(file: string, scriptEnv: NodeJS.ProcessEnv, message: RegExp) {
  const target = await emptyTarget();
  const before = await objectsIn(target.url);
  const restore = await runScript(
    'server/scripts/restore.ts',
    { ...scriptEnv, DATABASE_URL: target.requestUrl, DATABASE_OWNER_URL: target.url },
    [file],
  );
  expect(restore.code).toBe(1);
  expect(restore.output).toMatch(message);
  expect(restore.output).not.toContain('migrating the empty database');
  expect(await objectsIn(target.url)).toBe(before);
}

async function verify(file: string, scriptEnv = env) {
  return runScript('server/scripts/backup.ts', scriptEnv, ['--verify', file]);
}

beforeAll(async () => {
  scratch = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-sealed-'));
  await chmod(scratch, 0o755);
  const keyFile = fileIn('firm-signing-key.pem');
  loadSigningKey(keyFile, { create: true });
  server = await startTestServer({ MESSAGING_WEBHOOK_SECRET: WEBHOOK_SECRET });
  env = {
    ...process.env,
    DATABASE_URL: server.requestDatabaseUrl,
    DATABASE_OWNER_URL: server.databaseUrl,
    SIGNING_KEY_FILE: keyFile,
    BACKUP_KEY: '',
    LOG_LEVEL: 'warn',
  };
  await createUser({ email: 'dee@firm.test', name: 'Dee Director', role: 'director', password: 'director-password' });
  const { client, jar } = createHttpClient(server.url);
  await client.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
  await client.clients.create.mutate({ name: 'Amelia Hart', phone: '+44 7700 900123' });
  expect((await postWebhook(server.url, cloudPayload({ messages: [textMessage('wamid.sealed.1', '447700900123', BODY)] }))).status).toBe(
    200,
  );
  // An attachment of several chunks, so an edit lands in the middle of the file, past what opening it reads.
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(randomBytes(Math.round(2.5 * CHUNK_BYTES)))], { type: 'application/pdf' }), 'Bundle.pdf');
  const cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  expect((await fetch(`${server.url}/api/media`, { method: 'POST', body: form, headers: { cookie } })).status).toBe(200);

  good = fileIn('good.fcb');
  const backup = await runScript('server/scripts/backup.ts', env, [good]);
  expect(backup.code, backup.output).toBe(0);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await Promise.all(dropLater.map((d) => d.drop()));
  await rm(scratch, { recursive: true, force: true });
});

describe('npm run backup writes a sealed file', () => {
  it('mode 0600, with no message body, email or password hash in the clear, and --verify passes it', { timeout: 120_000 }, async () => {
    expect((await stat(good)).mode & 0o777).toBe(0o600);
    const bytes = await readFile(good);
    expect(bytes.includes(Buffer.from('settlement figure'))).toBe(false);
    expect(bytes.includes(Buffer.from('dee@firm.test'))).toBe(false);
    const [user] = await sql<{ hash: string }>(server.databaseUrl, `SELECT password_hash AS hash FROM users WHERE email = 'dee@firm.test'`);
    expect(bytes.includes(Buffer.from(user!.hash.slice(-24)))).toBe(false);
    // …while the contents hold them: the body is there, sealed.
    expect((await unsealBackup(good, backupKeyFor(env))).includes(Buffer.from(BODY))).toBe(true);

    const checked = await verify(good);
    expect(checked.code, checked.output).toBe(0);
    expect(checked.output).toMatch(/Backup verified: .* is whole, unaltered and this firm's/);
  });
});

describe('a file that is not exactly what this firm sealed is refused before anything is written', () => {
  it('one byte flipped in the middle: --verify exits 1, restore refuses and the target is unchanged', { timeout: 120_000 }, async () => {
    const bytes = await readFile(good);
    const at = SEALED_HEADER_LENGTH + CHUNK_BYTES + TAG_LENGTH + 1000; // inside the second chunk
    expect(bytes.length).toBeGreaterThan(SEALED_HEADER_LENGTH + 2 * (CHUNK_BYTES + TAG_LENGTH)); // not the first or last chunk, which opening reads
    bytes[at] = bytes[at]! ^ 0x01;
    const file = fileIn('flipped.fcb');
    await writeFile(file, bytes);
    const checked = await verify(file);
    expect(checked.code).toBe(1);
    expect(checked.output).toMatch(/Verify failed: .* is altered, or not this firm's: its chunk 2 of \d+ does not authenticate/);
    await expectRefusedBeforeWriting(file, env, /Restore refused: .* is altered, or not this firm's/);
  });

  it('cut short at a chunk boundary or inside a chunk: refused', { timeout: 120_000 }, async () => {
    const bytes = await readFile(good);
    const record = CHUNK_BYTES + TAG_LENGTH;
    const atBoundary = fileIn('cut-at-boundary.fcb');
    await writeFile(atBoundary, bytes.subarray(0, SEALED_HEADER_LENGTH + 2 * record)); // whole chunks, the last one missing
    const inside = fileIn('cut-inside.fcb');
    await writeFile(inside, bytes.subarray(0, bytes.length - 100));
    for (const file of [atBoundary, inside]) {
      const checked = await verify(file);
      expect(checked.code, file).toBe(1);
      expect(checked.output).toMatch(/is altered, or not this firm's: .*does not authenticate/);
    }
    await expectRefusedBeforeWriting(atBoundary, env, /Restore refused: .* is altered, or not this firm's/);
  });

  it('a backup made with another key: refused, naming both keys', { timeout: 120_000 }, async () => {
    const otherKeyFile = fileIn('other-firm-key.pem');
    loadSigningKey(otherKeyFile, { create: true });
    const otherEnv = { ...env, SIGNING_KEY_FILE: otherKeyFile };
    const checked = await verify(good, otherEnv);
    expect(checked.code).toBe(1);
    expect(checked.output).toMatch(
      /is altered, or not this firm's: it was sealed with a firm's signing key \(key id [0-9a-f]{32}\), not this run's key from the signing key/,
    );
    await expectRefusedBeforeWriting(good, otherEnv, /Restore refused: .* is altered, or not this firm's: it was sealed with/);
    const withBackupKey = await verify(good, { ...env, BACKUP_KEY: randomBytes(32).toString('hex') });
    expect(withBackupKey.code).toBe(1);
    expect(withBackupKey.output).toContain("not this run's key from BACKUP_KEY");
  });

  it(
    'an unencrypted backup of an older version: refused with how to proceed, restored only with --allow-unencrypted',
    { timeout: 120_000 },
    async () => {
      const legacy = fileIn('legacy.fcb');
      await writeFile(legacy, await unsealBackup(good, backupKeyFor(env)), { mode: 0o600 }); // the older format, byte for byte
      const checked = await verify(legacy);
      expect(checked.code).toBe(1);
      expect(checked.output).toContain('is an unencrypted backup made by an older version of Firm Chat');
      await expectRefusedBeforeWriting(
        legacy,
        env,
        /Restore refused: .*unencrypted backup .* `npm run restore -- --allow-unencrypted <file>`/,
      );

      const target = await emptyTarget();
      const restore = await runScript(
        'server/scripts/restore.ts',
        { ...env, DATABASE_URL: target.requestUrl, DATABASE_OWNER_URL: target.url },
        ['--allow-unencrypted', legacy],
      );
      expect(restore.code, restore.output).toBe(0);
      expect(restore.output).toContain('accepted by --allow-unencrypted');
      const [row] = await sql<{ n: number }>(target.url, `SELECT count(*)::int AS n FROM communications WHERE body = $1`, [BODY]);
      expect(row!.n).toBe(1);
    },
  );
});

describe('BACKUP_KEY', () => {
  it(
    'seals with the key given as hex and opens with the same key as base64; anything else is refused without echoing it',
    { timeout: 120_000 },
    async () => {
      const key = randomBytes(32);
      const file = fileIn('backup-key.fcb');
      const backup = await runScript('server/scripts/backup.ts', { ...env, BACKUP_KEY: key.toString('hex') }, [file]);
      expect(backup.code, backup.output).toBe(0);
      expect(backup.output).toContain('encrypted with BACKUP_KEY');
      const checked = await verify(file, { ...env, BACKUP_KEY: key.toString('base64') });
      expect(checked.code, checked.output).toBe(0);
      const signingKeyOnly = await verify(file); // BACKUP_KEY unset: the signing key's derived key is another key
      expect(signingKeyOnly.code).toBe(1);
      expect(signingKeyOnly.output).toContain('it was sealed with a BACKUP_KEY');

      const short = 'c2hvcnQta2V5LXRoYXQtaXMtbm90LTMyLWJ5dGVz';
      const refused = await verify(file, { ...env, BACKUP_KEY: short });
      expect(refused.code).toBe(1);
      expect(refused.output).toContain('BACKUP_KEY must be 32 bytes written as 64 hex digits or as base64 (44 characters)');
      expect(refused.output).not.toContain(short);
    },
  );
});
