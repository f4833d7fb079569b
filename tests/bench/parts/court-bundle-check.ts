import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import http from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import yauzl from 'yauzl';
import type { TStoredExhibit } from './court-bundle-seed';

// The measuring side of the court bundle (part 12): the bundle downloaded to the last byte while
// it is hashed, then read back as a court's clerk would, every file against the manifest and every
// exhibit against the file the firm stored.

export type TDownload = { bytes: number; sha256: string; headerSha256: string | null };

/**
 * `GET <url>` to the end into `toFile`, hashing as it arrives. node:http rather than fetch: fetch
 * gives up on headers after 5 minutes, and a 2 GB bundle is prepared whole before its first byte
 * (its hash heads the response).
 */
export function downloadBundle(url: string, cookie: string, toFile: string): Promise<TDownload> {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { headers: { cookie } }, (res) => {
      if (res.statusCode !== 200) {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c.slice(0, 2_000)));
        res.on('end', () => reject(new Error(`GET ${url} answered ${res.statusCode}: ${text}`)));
        res.on('error', reject);
        return;
      }
      const hash = createHash('sha256');
      let bytes = 0;
      const hasher = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          hash.update(chunk);
          bytes += chunk.length;
          callback(null, chunk);
        },
      });
      const header = res.headers['x-content-sha256'];
      pipeline(res, hasher, createWriteStream(toFile)).then(
        () => resolve({ bytes, sha256: hash.digest('hex'), headerSha256: typeof header === 'string' ? header : null }),
        reject,
      );
    });
    req.on('error', reject);
  });
}

type TManifest = {
  files: { path: string; sha256: string; bytes: number }[];
  missing?: { exhibit: number; name: string; reason: string }[];
};

export type TBundleCheck = {
  /** Entries in the ZIP, manifest.json included. */
  entries: number;
  /** Files the manifest lists, and how many are in the ZIP with the listed hash and length. */
  listed: number;
  matching: number;
  /** ZIP entries the manifest does not list (manifest.json itself aside). */
  extra: string[];
  /** transcript.pdf and messages.json both listed and matching. */
  partsMatch: boolean;
  /** Exhibits the manifest lists, and how many have the number, hash and length the database stored. */
  exhibits: number;
  exhibitsAsStored: number;
  /** Files the manifest says are missing. */
  missing: number;
  /** The first few problems, for the figure's name. */
  problems: string[];
  pass: boolean;
};

/**
 * Reads the ZIP back (yauzl, one entry at a time, each hashed as it streams) and checks it three
 * ways: every listed file is in the ZIP with its listed SHA-256 and length, nothing is in the ZIP
 * the manifest does not list, and the exhibits are exactly the stored files, numbered as exported.
 */
export async function checkBundle(zipPath: string, stored: TStoredExhibit[]): Promise<TBundleCheck> {
  const found = new Map<string, { sha256: string; bytes: number }>();
  let manifestText = '';
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.open(zipPath, { lazyEntries: true, autoClose: true }, (error, file) => (error ? reject(error) : resolve(file))),
  );
  await new Promise<void>((resolve, reject) => {
    zip.on('error', reject);
    zip.on('end', () => resolve());
    zip.on('entry', (entry: yauzl.Entry) => {
      if (entry.fileName.endsWith('/')) return zip.readEntry();
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const hash = createHash('sha256');
        let bytes = 0;
        const isManifest = entry.fileName === 'manifest.json';
        stream.on('data', (chunk: Buffer) => {
          hash.update(chunk);
          bytes += chunk.length;
          if (isManifest) manifestText += chunk.toString('utf8');
        });
        stream.on('error', reject);
        stream.on('end', () => {
          found.set(entry.fileName, { sha256: hash.digest('hex'), bytes });
          zip.readEntry();
        });
      });
    });
    zip.readEntry();
  });

  const problems: string[] = [];
  if (!manifestText) problems.push('no manifest.json');
  const manifest: TManifest = manifestText ? (JSON.parse(manifestText) as TManifest) : { files: [] };
  const listedPaths = new Set(manifest.files.map((f) => f.path));
  let matching = 0;
  for (const file of manifest.files) {
    const got = found.get(file.path);
    if (got && got.sha256 === file.sha256 && got.bytes === file.bytes) matching++;
    else problems.push(got ? `${file.path} differs from its manifest line` : `${file.path} is not in the ZIP`);
  }
  // manifest.sig is the firm's signature over manifest.json (server/export/README.md "Signed exports"), not an exhibit.
  const extra = [...found.keys()].filter((p) => p !== 'manifest.json' && p !== 'manifest.sig' && !listedPaths.has(p));
  for (const p of extra) problems.push(`${p} is not in the manifest`);
  const partsMatch = ['transcript.pdf', 'messages.json'].every((p) => {
    const line = manifest.files.find((f) => f.path === p);
    const got = found.get(p);
    return line && got && got.sha256 === line.sha256 && got.bytes === line.bytes;
  });
  if (!partsMatch) problems.push('transcript.pdf or messages.json missing or not matching');

  // exhibits/NNN-<name>: NNN the exhibit number, at least three digits.
  const byNumber = new Map(stored.map((s) => [s.exhibit, s]));
  const exhibitLines = manifest.files.filter((f) => f.path.startsWith('exhibits/'));
  let exhibitsAsStored = 0;
  for (const line of exhibitLines) {
    const number = /^exhibits\/(\d{3,})-./.exec(line.path)?.[1];
    const want = number === undefined ? undefined : byNumber.get(Number(number));
    const got = found.get(line.path);
    if (want && got && got.sha256 === want.sha256 && got.bytes === want.size && line.sha256 === want.sha256) exhibitsAsStored++;
    else problems.push(`${line.path} is not stored file ${number ?? '?'}`);
  }
  if (exhibitLines.length !== stored.length) problems.push(`${exhibitLines.length} exhibits listed, ${stored.length} stored`);
  const missing = manifest.missing?.length ?? 0;
  if (missing) problems.push(`${missing} exhibits listed as missing`);
  return {
    entries: found.size,
    listed: manifest.files.length,
    matching,
    extra,
    partsMatch,
    exhibits: exhibitLines.length,
    exhibitsAsStored,
    missing,
    problems: problems.slice(0, 5),
    pass: problems.length === 0,
  };
}
