export { backupKeyFrom } from './derive-backup-key';
export { openText, sealText, subkeyFrom } from './sealed-text';
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
