import { chmod, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findUnreachableDirectory } from '../../server/core/db/embedded-postgres-access';

// A uid and gid that own nothing here: only the "other" permission bits apply to them.
const STRANGER = { uid: 4242, gid: 4242 };

describe('findUnreachableDirectory', () => {
  let base: string;
  beforeAll(async () => {
    base = await mkdtemp(path.join(os.tmpdir(), 'firm-chat-access-'));
    await mkdir(path.join(base, 'inner', 'deeper'), { recursive: true });
  });
  afterAll(() => rm(base, { recursive: true, force: true }));

  it('names the first directory on the way that a stranger cannot enter', async () => {
    await chmod(base, 0o700);
    expect(findUnreachableDirectory(path.join(base, 'inner', 'deeper'), STRANGER)).toEqual({
      dir: base,
      mode: '700',
      ownerUid: process.getuid!(),
    });
  });

  it('walks up from a target that does not exist yet', async () => {
    await chmod(base, 0o700);
    expect(findUnreachableDirectory(path.join(base, 'not', 'yet'), STRANGER)?.dir).toBe(base);
  });

  it('passes when every directory on the way lets others enter (execute bit only)', async () => {
    await chmod(base, 0o711);
    await chmod(path.join(base, 'inner'), 0o755);
    expect(findUnreachableDirectory(path.join(base, 'inner', 'deeper'), STRANGER)).toBeNull();
  });

  it('uses the owner bits for the owner and the group bits for the group', async () => {
    await chmod(base, 0o750);
    const owner = { uid: process.getuid!(), gid: 4242 };
    const group = { uid: 4242, gid: process.getgid!() };
    expect(findUnreachableDirectory(base, owner)).toBeNull();
    expect(findUnreachableDirectory(base, group)).toBeNull();
    expect(findUnreachableDirectory(base, STRANGER)?.dir).toBe(base);
  });
});
