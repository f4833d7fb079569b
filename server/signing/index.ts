export { backupKeyFrom } from './derive-backup-key';
export {
  fingerprintOf,
  loadSigningKey,
  readRetiredKeys,
  SigningKeyError,
  signingKeyFromPem,
  trustedKeysOf,
  verifySignature,
  type TPublicKey,
  type TSigningKey,
} from './signing-key';
