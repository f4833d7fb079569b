export { BackupAuthenticationError, BackupDamagedError, BackupUnencryptedError, type TBackupManifest } from './backup-format';
export { BackupKeyError, parseBackupKey, resolveBackupKey, type TBackupKey } from './backup-key';
export { openBackup, verifyBackup } from './read-backup';
export { checkBackup, restoreBackup, RestoreRefusedError, type TRestoreProgress } from './restore-backup';
export { writeBackup, type TBackupProgress } from './write-backup';
