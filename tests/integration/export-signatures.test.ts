import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createClient } from '../../server/crm/clients';
import { signatureOfCopy } from '../../server/export/export-signature';
import { judgeCopy } from '../../server/export/judge-copy';
import { checkExportFile } from '../../server/export/verify-export';
import { fingerprintOf, loadSigningKey, verifySignature, type TSigningKey } from '../../server/signing';
import { runScript } from '../support/app-process';
import { startLiveSetup, type TLiveSetup } from '../support/live-setup';
import { sql } from '../support/sql';
import { createHttpClient } from '../support/test-server';
import { readZip, zipOf } from '../support/zip-entries';

// Signed exports (server/export/README.md "Signed exports", server/decisions/0023-signing-key.md): an
// audit row the app's own database login can write is no proof of origin; the firm's signature is.

const CLIENT = '447700900123';
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

let live: TLiveSetup;
let work: string;
let key: TSigningKey;
let otherKey: TSigningKey;
let publicKeyFile: string;
let clientId: number;
let directorCookie: string;
let bundle: Buffer;
let bundleEntries: [string, Buffer][];

async function download(pathname: string): Promise<Response> {
  const res = await fetch(`${live.server.url}/api/export/${pathname}`, { headers: { cookie: live.staffCookie } });
  expect(res.status).toBe(200);
  return res;
}

async function verify(body: Buffer) {
  const res = await fetch(`${live.server.url}/api/export/verify`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', cookie: directorCookie },
    body: new Uint8Array(body),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { verdict: string; summary: string; export: { auditEventId: number } | null };
}

/** `npm run export:verify` with no database anywhere: no DATABASE_URL, a data dir with no cluster, no key file. */
async function verifyOffline(name: string, bytes: Buffer, args: string[] = ['--public-key', publicKeyFile]) {
  const file = path.join(work, name);
  await writeFile(file, bytes);
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: 'warn', DATA_DIR: path.join(work, 'no-data-here') };
  return runScript('server/scripts/export-verify.ts', env, [file, ...args]);
}

const entry = (name: string) => bundleEntries.find(([entryName]) => entryName === name)![1];

/** The bundle with one entry's bytes replaced (everything else as it was). */
const withEntry = (name: string, bytes: Buffer) =>
  zipOf(bundleEntries.map(([entryName, original]): [string, Buffer] => [entryName, entryName === name ? bytes : original]));

/** One byte changed: a digit in text (JSON stays JSON, base64 stays base64), else a bit flipped. */
function oneByteChanged(name: string, bytes: Buffer): Buffer {
  const copy = Buffer.from(bytes);
  if (name === 'manifest.sig') {
    copy[10] = copy[10] === 0x41 ? 0x42 : 0x41; // 'A' ↔ 'B': still base64
    return copy;
  }
  if (name.endsWith('.json')) {
    const at = /[0-9a-f]{64}/.exec(copy.toString('latin1'))!.index; // a hash's first character
    copy[at] = copy[at] === 0x30 ? 0x31 : 0x30;
    return copy;
  }
  const middle = Math.floor(copy.length / 2);
  copy[middle] = copy[middle]! ^ 1;
  return copy;
}

beforeAll(async () => {
  work = await mkdtemp(path.join(os.tmpdir(), 'export-signatures-test-'));
  key = loadSigningKey(path.join(work, 'firm-key.pem'), { create: true });
  otherKey = loadSigningKey(path.join(work, 'other-key.pem'), { create: true });
  publicKeyFile = path.join(work, 'firm-public.pem');
  await writeFile(publicKeyFile, key.publicKeyPem);
  live = await startLiveSetup({ SIGNING_KEY_FILE: path.join(work, 'firm-key.pem') }, { mediaQueue: { pollMs: 50 } });
  clientId = (await createClient({ name: 'Amelia Hart', phone: `+${CLIENT}` })).id;
  const director = createHttpClient(live.server.url);
  await director.client.auth.signIn.mutate({ email: 'dee@firm.test', password: 'director-password' });
  directorCookie = [...director.jar].map(([k, v]) => `${k}=${v}`).join('; ');
  await live.sim.sendInbound(CLIENT, 'Here are the papers', 'Amelia');
  const photo = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#3060c0' } })
    .jpeg()
    .toBuffer();
  await live.sim.sendInboundKind({ kind: 'image', from: CLIENT, bytesBase64: photo.toString('base64'), mimeType: 'image/jpeg' });
  await vi.waitFor(
    async () => expect((await sql(live.server.databaseUrl, `SELECT id FROM attachments WHERE state = 'stored'`)).length).toBe(1),
    { timeout: 15_000, interval: 50 },
  );
  bundle = Buffer.from(await (await download(`client/${clientId}.zip`)).arrayBuffer());
  bundleEntries = await readZip(bundle);
}, 60_000);
afterAll(async () => {
  await live?.stop();
  if (work) await rm(work, { recursive: true, force: true });
});

describe('GET /api/signing-key', () => {
  it("answers the key file's public key and fingerprint to anyone, and the PEM itself as a download", async () => {
    const res = await fetch(`${live.server.url}/api/signing-key`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { publicKeyPem: string; fingerprint: string; algorithm: string };
    expect(body).toEqual({ publicKeyPem: key.publicKeyPem, fingerprint: key.fingerprint, algorithm: 'Ed25519' });
    expect(fingerprintOf(body.publicKeyPem)).toBe(key.fingerprint);
    for (const asked of [
      fetch(`${live.server.url}/api/signing-key?format=pem`),
      fetch(`${live.server.url}/api/signing-key`, { headers: { accept: 'application/x-pem-file' } }),
    ]) {
      const pem = await asked;
      expect(pem.headers.get('content-type')).toMatch(/^application\/x-pem-file/);
      expect(pem.headers.get('content-disposition')).toBe('attachment; filename="firm-chat-signing-key.pem"');
      expect(await pem.text()).toBe(key.publicKeyPem);
    }
  });
});

describe('a PDF or JSON export', () => {
  it('carries X-Signature over its SHA-256 under the firm key, and its audit event keeps the signature', async () => {
    for (const format of ['pdf', 'json']) {
      const res = await download(`client/${clientId}.${format}`);
      const bytes = Buffer.from(await res.arrayBuffer());
      const match = /^ed25519=([A-Za-z0-9+/=]+); key=([0-9a-f]{64})$/.exec(res.headers.get('x-signature') ?? '');
      expect(match, res.headers.get('x-signature') ?? 'no X-Signature').not.toBeNull();
      expect(match![2]).toBe(key.fingerprint);
      expect(verifySignature(Buffer.from(sha256(bytes), 'hex'), match![1]!, key.publicKeyPem)).toBe(true);
      const [event] = await sql<{ detail: { signature: string; signingKey: string } }>(
        live.server.databaseUrl,
        `SELECT detail FROM audit_events WHERE action = 'export.create' AND detail->>'sha256' = $1`,
        [sha256(bytes)],
      );
      expect(event!.detail).toMatchObject({ signature: match![1], signingKey: key.fingerprint });
      expect((await verify(bytes)).verdict).toBe('genuine');
    }
  });

  it('is not genuine when the export event naming it was written by the database login, not signed by the firm', async () => {
    const genuine = Buffer.from(await (await download(`client/${clientId}.pdf`)).arrayBuffer());
    const [sam] = await sql<{ id: number }>(live.server.databaseUrl, `SELECT id FROM users WHERE email = 'sam@firm.test'`);
    /** An edited copy and an export event for it, inserted as the role requests run as (the app's own login). */
    const forge = async (text: string, signed: Record<string, string>) => {
      const edited = Buffer.concat([genuine, Buffer.from(`\n% ${text}\n`)]);
      const detail = { format: 'pdf', sha256: sha256(edited), bytes: edited.length, messages: 1, fileName: 'Chat record.pdf', ...signed };
      await sql(
        live.server.requestDatabaseUrl,
        `INSERT INTO public.audit_events (user_id, action, subject, detail, ip) VALUES ($1, 'export.create', $2, $3::jsonb, NULL)`,
        [sam!.id, `client:${clientId}`, JSON.stringify(detail)],
      );
      return verify(edited);
    };
    const unsigned = await forge('no signature', {});
    expect(unsigned).toMatchObject({ verdict: 'unknown' });
    expect(unsigned.summary).toMatch(/but its export event carries no signature of the firm's key, so nothing proves the firm made it\.$/);

    // The genuine export's signature copied onto the forged row: it is over other bytes.
    const copied = await forge('copied signature', {
      signature: (
        await sql<{ s: string }>(
          live.server.databaseUrl,
          `SELECT detail->>'signature' AS s FROM audit_events WHERE detail->>'sha256' = $1`,
          [sha256(genuine)],
        )
      )[0]!.s,
      signingKey: key.fingerprint,
    });
    expect(copied.verdict).toBe('altered');
    expect(copied.summary).toContain("has a signature that does not verify against the firm's key");

    const other = await forge('another key', { signature: otherKey.sign(Buffer.alloc(32)), signingKey: otherKey.fingerprint });
    expect(other.verdict).toBe('altered');
    expect(other.summary).toContain("signed by a key that is not the firm's");
  });
});

describe('a court bundle', () => {
  it('holds manifest.sig over manifest.json, and its manifest names the key', () => {
    const manifest = JSON.parse(entry('manifest.json').toString('utf8')) as { signingKey: unknown };
    expect(manifest.signingKey).toEqual({ algorithm: 'Ed25519', fingerprint: key.fingerprint });
    expect(verifySignature(entry('manifest.json'), entry('manifest.sig').toString('utf8').trim(), key.publicKeyPem)).toBe(true);
  });

  it('verifies offline with only the public key: no configuration, no database', async () => {
    const run = await verifyOffline('bundle.zip', bundle);
    expect(run.code, run.output).toBe(0);
    expect(run.output).toContain(`Signature: valid, made by the firm’s key (key ${key.fingerprint}).`);
    expect(run.output).toContain('Verdict: genuine.');
    expect(run.output).not.toContain('could not be reached');
  }, 60_000);

  it('fails offline when one byte of any entry is changed', async () => {
    // Every entry through the checks the command runs (in-process: a run of the command costs seconds), then one run of it.
    for (const [name, bytes] of bundleEntries) {
      const file = path.join(work, `changed-${name.replace(/\//g, '_')}.zip`);
      await writeFile(file, await withEntry(name, oneByteChanged(name, bytes)));
      const check = await checkExportFile(file, undefined, key);
      const { verdict, summary } = judgeCopy(check, null, { lookedUp: false, signature: signatureOfCopy(check, null, key) });
      expect([name, verdict], summary).not.toEqual([name, 'genuine']);
    }
    const exhibit = bundleEntries.find(([name]) => name.startsWith('exhibits/'))!;
    const run = await verifyOffline('changed-exhibit.zip', await withEntry(exhibit[0], oneByteChanged(exhibit[0], exhibit[1])));
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain('Verdict: altered.');
  }, 120_000);

  it("fails offline and online when its manifest was re-signed with another key: not the firm's", async () => {
    const manifest = JSON.parse(entry('manifest.json').toString('utf8')) as Record<string, unknown>;
    const edited = Buffer.from(
      JSON.stringify({ ...manifest, signingKey: { algorithm: 'Ed25519', fingerprint: otherKey.fingerprint } }, null, 2),
    );
    const resigned = await zipOf(
      bundleEntries.map(([name, bytes]): [string, Buffer] => [
        name,
        name === 'manifest.json' ? edited : name === 'manifest.sig' ? Buffer.from(`${otherKey.sign(edited)}\n`) : bytes,
      ]),
    );
    const run = await verifyOffline('resigned.zip', resigned);
    expect(run.code, run.output).toBe(1);
    expect(run.output).toContain(
      "Verdict: altered. Every file matches the bundle's manifest, but its manifest is signed by a key that is not the firm's",
    );
    expect((await verify(resigned)).verdict).not.toBe('genuine');

    // Re-signed by another key while still naming the firm's: the signature does not verify.
    const sneaky = await withEntry('manifest.sig', Buffer.from(`${otherKey.sign(entry('manifest.json'))}\n`));
    const quiet = await verifyOffline('sneaky.zip', sneaky);
    expect(quiet.code, quiet.output).toBe(1);
    expect(quiet.output).toContain("its manifest has a signature that does not verify against the firm's key");
    expect((await verify(sneaky)).verdict).toBe('altered');
  }, 120_000);
});
