export { BackupDamagedError, type TBackupManifest } from './backup-format';
export { openBackup, verifyBackup } from './read-backup';
export { restoreBackup, RestoreRefusedError, type TRestoreProgress } from './restore-backup';
export { writeBackup, type TBackupProgress } from './write-backup';
