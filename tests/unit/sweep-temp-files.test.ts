import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LIVE_PID_STALE_MS, makeTempDir, sweepTempFiles, TEMP_DIR_PREFIXES, UNTAGGED_STALE_MS } from '../../server/core/temp-files';
import { DOWNLOAD_SPOOL_PREFIX } from '../../server/media/media-download-queue';

const ROOT = path.resolve(import.meta.dirname, '../..');
const HOUR = 60 * 60 * 1000;
let root: string;
let hostTag: string;
const tmpdirBefore = process.env.TMPDIR;

beforeAll(async () => {
  // Where this process's makeTempDir puts its directories: the test's own directory, not the machine's.
  root = await mkdtemp(path.join(os.tmpdir(), 'sweep-temp-files-test-'));
  process.env.TMPDIR = root;
  hostTag = /-h([0-9a-f]{8})-p/.exec(path.basename(await makeTempDir('upload')))![1]!;
});
afterAll(async () => {
  if (tmpdirBefore === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = tmpdirBefore;
  await rm(root, { recursive: true, force: true });
});
afterEach(async () => {
  // The exporter itself, not only tsx's wrapper around it (which would leave it running).
  for (const pid of exporterPids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  await rm(root, { recursive: true, force: true });
  await mkdir(root);
});

/** A directory of this app's with a spooled file in it, last changed `ageMs` ago (the directory and the file). */
async function leftover(name: string, ageMs: number, fileAgeMs = ageMs): Promise<string> {
  const dir = path.join(root, name);
  await mkdir(dir);
  await writeFile(path.join(dir, 'file'), 'spooled bytes');
  const at = (ms: number) => new Date(Date.now() - ms);
  await utimes(path.join(dir, 'file'), at(fileAgeMs), at(fileAgeMs));
  await utimes(dir, at(ageMs), at(ageMs));
  return dir;
}

const exporterPids: number[] = [];
/** Another server process that makes an export's temporary directory and writes to it, then waits. */
async function startExporter(): Promise<{ child: ChildProcess; dir: string; pid: number }> {
  const script = `
    import { writeFileSync } from 'node:fs';
    import { makeTempDir } from './server/core/temp-files';
    void makeTempDir('export').then((dir) => {
      writeFileSync(dir + '/export.pdf', 'half an export');
      console.log(JSON.stringify({ dir, pid: process.pid }));
      setInterval(() => undefined, 60_000);
    });`;
  const child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['--eval', script], {
    cwd: ROOT,
    env: { ...process.env, TMPDIR: root },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    child.once('exit', (code) => reject(new Error(`the exporter exited (${code}) before making its directory`)));
  });
  const made = JSON.parse(line) as { dir: string; pid: number };
  exporterPids.push(made.pid);
  return { child, ...made };
}

it("knows the download queue's prefix", () => {
  expect(TEMP_DIR_PREFIXES.download).toBe(DOWNLOAD_SPOOL_PREFIX);
});

describe('sweepTempFiles', () => {
  it("removes at once what a process killed outright left, and keeps a running process's directory", async () => {
    const [killed, running] = await Promise.all([startExporter(), startExporter()]);
    const exited = new Promise((resolve) => killed.child.once('exit', resolve));
    process.kill(killed.pid, 'SIGKILL'); // the server itself (tsx runs it as a child of its own)
    await exited;
    expect(await sweepTempFiles({ dir: root })).toEqual([killed.dir]);
    expect(existsSync(killed.dir)).toBe(false);
    expect(existsSync(path.join(running.dir, 'export.pdf'))).toBe(true);
  }, 30_000);

  it("keeps this process's own directories, and removes one with its pid made before it started (a restart given the same pid)", async () => {
    const mine = await makeTempDir('export');
    const before = await leftover(`firm-chat-export-h${hostTag}-p${process.pid}-Ab12Cd`, 10 * 60_000);
    expect(await sweepTempFiles({ dir: root, startedAt: Date.now() - 60_000 })).toEqual([before]);
    expect(existsSync(mine)).toBe(true);
  });

  it("a running pid's directory goes only once it has not changed for a day (the pid may be another process's by now)", async () => {
    const isRunning = () => true;
    const recent = await leftover(`firm-chat-export-h${hostTag}-p4194000-Ab12Cd`, 2 * HOUR);
    const old = await leftover(`firm-chat-export-h${hostTag}-p4194001-Ab12Cd`, LIVE_PID_STALE_MS + HOUR);
    expect(await sweepTempFiles({ dir: root, isRunning })).toEqual([old]);
    expect(existsSync(recent)).toBe(true);
  });

  it('an untagged directory (uploads, downloads) or another machine’s goes after an hour without a change, not while a file in it is written', async () => {
    const staleUpload = await leftover('firm-chat-upload-Xy12Zw', UNTAGGED_STALE_MS + 60_000);
    const staleDownload = await leftover('firm-chat-download-Xy12Zw', 3 * HOUR);
    const staleElsewhere = await leftover('firm-chat-export-h00000000-p12-Xy12Zw', 2 * HOUR);
    const fresh = await leftover('firm-chat-upload-Fr35h1', 5 * 60_000);
    const beingWritten = await leftover('firm-chat-upload-Wr1t1n', 3 * HOUR, 10_000);
    const freshElsewhere = await leftover('firm-chat-export-h00000000-p12-Fr35h1', 5 * 60_000);
    expect((await sweepTempFiles({ dir: root })).sort()).toEqual([staleDownload, staleElsewhere, staleUpload].sort());
    for (const kept of [fresh, beingWritten, freshElsewhere]) expect(existsSync(kept)).toBe(true);
  });

  it("leaves alone what is not this app's directory: other names, a file, a symbolic link", async () => {
    const outside = await mkdtemp(path.join(os.tmpdir(), 'sweep-target-'));
    try {
      const others = [
        await leftover('firm-chat-e2e-Ab12Cd', 3 * HOUR),
        await leftover('firm-chat-upload-toolongname', 3 * HOUR),
        await leftover('something-else', 3 * HOUR),
      ];
      await writeFile(path.join(root, 'firm-chat-upload-F1le00'), 'a file');
      await symlink(outside, path.join(root, 'firm-chat-upload-L1nk00'));
      await writeFile(path.join(outside, 'precious'), 'not ours');
      expect(await sweepTempFiles({ dir: root, now: Date.now() + 10 * LIVE_PID_STALE_MS })).toEqual([]);
      for (const kept of [...others, path.join(root, 'firm-chat-upload-F1le00'), path.join(outside, 'precious')]) {
        expect(existsSync(kept)).toBe(true);
      }
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
