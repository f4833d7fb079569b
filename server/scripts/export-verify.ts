import 'dotenv/config';
import { createPublicKey } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Sequelize } from 'sequelize';
import { showInvisibleCharacters } from '../../shared/visible-text';
import { loadConfig } from '../core/config';
import { attachDatabase, hasEmbeddedCluster, type TAttachedDatabase } from '../core/db/attach-database';
import { createSequelize } from '../core/db/sequelize';
import { createLogger } from '../core/logger';
import { findExportEvent, type TExportMatch } from '../export/find-export-event';
import { findStoredFile, type TStoredFile } from '../export/find-stored-file';
import { signatureOfCopy, type TPublicKey, type TSignatureCheck } from '../export/export-signature';
import { describeExport, judgeCopy } from '../export/judge-copy';
import { fingerprintOf, loadSigningKey } from '../signing';
import { checkExportFile, UNACCOUNTED, type TFileCheck } from '../export/verify-export';

// npm run export:verify -- <file> [--offline] [--public-key key.pem] (server/export/README.md "Evidence exports"):
// what a copy of an export is, and for a court bundle whether its manifest.sig verifies under the firm's
// key and every file matches its manifest — that part with no server and no database. With
// --public-key nothing else is read (no configuration, no database); without it the key is the
// configured SIGNING_KEY_FILE's, and the file's hash is looked up in the audit trail when a database is
// configured (DATABASE_URL, or the embedded one under DATA_DIR), and when it is no export, among the
// files the firm holds (the operator's command: no walls). Exit 0 genuine (or, offline with no key at
// hand, a bundle whose every file matches), 1 altered or unknown, 2 a wrong command.

const USAGE = 'Usage: npm run export:verify -- <file> [--offline] [--public-key key.pem]';
const KIND = { zip: 'court bundle (ZIP)', pdf: 'PDF', json: 'JSON', unknown: 'not an export of Firm Chat' } as const;

/** A name from inside a file, safe to print: no control or direction characters reach the terminal. */
const shown = (text: string) => showInvisibleCharacters(text).replace(/[\t\n\r]/g, ' ');

class UsageError extends Error {}

function parseArguments(args: string[]): { file: string; offline: boolean; publicKey: string | null } {
  const rest = [...args];
  let publicKey: string | null = null;
  const at = rest.findIndex((arg) => arg === '--public-key' || arg.startsWith('--public-key='));
  if (at >= 0) {
    const [arg] = rest.splice(at, 1);
    const value = arg!.includes('=') ? arg!.slice(arg!.indexOf('=') + 1) : rest.splice(at, 1)[0];
    if (!value || value.startsWith('--')) throw new UsageError(`--public-key needs the firm's public key file (PEM). ${USAGE}`);
    publicKey = path.resolve(value);
  }
  const options = rest.filter((arg) => arg.startsWith('--'));
  const files = rest.filter((arg) => !arg.startsWith('--'));
  if (files.length !== 1 || options.some((option) => option !== '--offline')) throw new UsageError(USAGE);
  return { file: path.resolve(files[0]!), offline: options.includes('--offline') || publicKey !== null, publicKey };
}

/** The public key a file names (a public or private PEM: only its public half is used); a wrong file is a wrong command. */
async function readPublicKey(file: string): Promise<TPublicKey> {
  const pem = await readFile(file, 'utf8').catch(() => {
    throw new UsageError(`${file} cannot be read. ${USAGE}`);
  });
  try {
    const key = createPublicKey(pem);
    if (key.asymmetricKeyType !== 'ed25519') throw new Error(`an ${key.asymmetricKeyType} key`);
    return { publicKeyPem: key.export({ type: 'spki', format: 'pem' }).toString(), fingerprint: fingerprintOf(key) };
  } catch (error) {
    throw new UsageError(`${file} is not the firm's Ed25519 public key (PEM): ${(error as Error).message}. ${USAGE}`);
  }
}

/** The configured key file's public half (SIGNING_KEY_FILE), or why there is none. */
function configuredKey(): TPublicKey | { none: string } {
  try {
    const key = loadSigningKey(loadConfig().signingKeyFile, { create: false });
    return { publicKeyPem: key.publicKeyPem, fingerprint: key.fingerprint };
  } catch (error) {
    return { none: error instanceof Error ? error.message : String(error) };
  }
}

const SIGNATURE_LINE: Record<TSignatureCheck['state'], string> = {
  valid: 'valid, made by the firm’s key',
  missing: 'none',
  invalid: 'does not verify against the firm’s key',
  'other-key': 'made by a key that is not the firm’s',
  unchecked: 'not checked',
};

function printSignature(signature: TSignatureCheck | null, key: TPublicKey | { none: string }): void {
  if ('none' in key) console.log(`Signature: not checked (no public key: ${shown(key.none)}; pass --public-key key.pem).`);
  else if (signature)
    console.log(`Signature: ${SIGNATURE_LINE[signature.state]}${signature.fingerprint ? ` (key ${signature.fingerprint})` : ''}.`);
}

/** The audit trail's answer (and the stored file with the same bytes, when no export matches), or why it was not asked. */
async function lookUp(
  check: TFileCheck,
): Promise<{ match: TExportMatch | null; storedFile: TStoredFile | null } | { notLookedUp: string }> {
  let database: TAttachedDatabase | null = null;
  let sequelize: Sequelize | null = null;
  try {
    const config = loadConfig();
    if (!config.databaseUrl && !hasEmbeddedCluster(config.dataDir)) return { notLookedUp: 'no database is configured here' };
    const logger = createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
    database = await attachDatabase(config, logger);
    sequelize = createSequelize(database.ownerUrl, logger, { poolMax: 1 });
    const match = await findExportEvent(sequelize, check);
    return { match, storedFile: match ? null : await findStoredFile(sequelize, check.sha256, null) };
  } catch (error) {
    return { notLookedUp: `the database could not be reached (${error instanceof Error ? error.message : String(error)})` };
  } finally {
    await sequelize?.close().catch(() => undefined);
    await database?.close().catch(() => undefined);
  }
}

function printManifest(check: TFileCheck): void {
  if (check.problem) return console.log(`Manifest: not checked: ${check.problem}.`);
  const manifest = check.manifest;
  if (!manifest) return;
  const bad = manifest.files.filter((file) => !file.matches);
  // Rows for exhibits messages.json records that the manifest does not list are not "listed".
  const listed = manifest.files.filter((file) => !file.problem?.startsWith(UNACCOUNTED)).length;
  const contradicted = manifest.missing.filter((missing) => missing.problem).length;
  console.log(
    (manifest.allMatch
      ? `Manifest: ${listed} files listed; every one matches`
      : `Manifest: ${listed} files listed; ${bad.length} do not match, ${manifest.extra.length} not listed`) +
      (contradicted ? `; messages.json contradicts ${contradicted} of the exhibits it lists as missing.` : '.'),
  );
  for (const file of bad)
    console.log(`  ${(file.found ? 'differs:' : 'missing:').padEnd(12)}${shown(file.path)}: ${shown(file.problem ?? 'differs')}`);
  // Differences the bundle itself declared (its manifest's missing list) match, yet are worth reading.
  for (const file of manifest.files.filter((row) => row.matches && row.problem))
    console.log(`  note:       ${shown(file.path)}: ${shown(file.problem!)}`);
  for (const extra of manifest.extra) console.log(`  not listed: ${shown(extra)}`);
  for (const missing of manifest.missing)
    console.log(
      `  exhibit ${missing.exhibit} (${shown(missing.name)}) is not in the bundle: ${shown(missing.reason)}` +
        (missing.problem ? ` (${missing.problem})` : ''),
    );
}

async function main(): Promise<number> {
  const { file, offline, publicKey } = parseArguments(process.argv.slice(2));
  const info = await stat(file).catch(() => null);
  if (!info?.isFile()) throw new UsageError(`${file} is not a file. ${USAGE}`);
  const key = publicKey ? await readPublicKey(publicKey) : configuredKey();
  const firmKey = 'none' in key ? null : key;
  const check = await checkExportFile(file, undefined, firmKey);
  console.log(`File: ${shown(file)}`);
  const kind = check.plainJson ? 'a JSON file that is not a Firm Chat export' : KIND[check.kind];
  console.log(`Kind: ${kind}, ${check.bytes.toLocaleString('en-GB')} bytes`);
  console.log(`SHA-256: ${check.sha256}`);
  printManifest(check);
  const trail = offline ? { notLookedUp: '--offline' } : await lookUp(check);
  if ('notLookedUp' in trail) console.log(`Audit trail: not looked up in the audit trail (${trail.notLookedUp}).`);
  else if (trail.match) console.log(`Audit trail: ${shown(describeExport(trail.match.found))}.`);
  else console.log('Audit trail: no export in the trail has this file’s hash.');
  const match = 'match' in trail ? trail.match : null;
  const storedFile = 'storedFile' in trail ? trail.storedFile : null;
  const signature = signatureOfCopy(check, match?.signed ?? null, firmKey);
  printSignature(signature, key);
  const { verdict, summary } = judgeCopy(check, match?.found ?? null, {
    lookedUp: !('notLookedUp' in trail),
    byManifest: match?.byManifest,
    byPart: match?.byPart,
    storedFile,
    signature,
  });
  // With no key at hand the manifest's hashes are all there is to check: intact, never genuine.
  const intactOffline = 'notLookedUp' in trail && !firmKey && verdict === 'unknown' && check.manifest?.allMatch === true;
  console.log(`Verdict: ${intactOffline ? 'intact (every file matches its manifest)' : verdict}. ${shown(summary)}`);
  return verdict === 'genuine' || intactOffline ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(error.message);
      process.exit(2);
    }
    console.error(`export:verify failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
