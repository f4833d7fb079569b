import { open } from 'node:fs/promises';
import { resolveBackupKey, type TBackupKey } from '../../server/backup';
import { createSealWriter, sealedSource } from '../../server/backup/sealed-file';
import { loadConfig } from '../../server/core/config';

// A backup's contents in the clear, and sealed again (server/backup/README.md "The file"): what a
// program holding the firm's key could write, for tests of what restore does with such a file.

/** The key the backup and restore scripts use with `env`. */
export const backupKeyFor = (env: NodeJS.ProcessEnv): TBackupKey => resolveBackupKey(loadConfig(env), { create: false });

/** The sealed file's contents: the unsealed format of an older version, byte for byte. */
export async function unsealBackup(file: string, key: TBackupKey): Promise<Buffer> {
  const handle = await open(file, 'r');
  try {
    const { size } = await handle.stat();
    const source = await sealedSource(handle, size, key, file);
    return await source.read(source.size, 0);
  } finally {
    await handle.close();
  }
}

/** Writes `contents` sealed with `key` to `file`. */
export async function sealBackup(contents: Buffer, file: string, key: TBackupKey): Promise<void> {
  const handle = await open(file, 'w', 0o600);
  try {
    const writer = await createSealWriter(handle, key);
    await writer.write(contents);
    await writer.finish();
  } finally {
    await handle.close();
  }
}
