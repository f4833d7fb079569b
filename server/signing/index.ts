export { fingerprintOf, loadSigningKey, SigningKeyError, signingKeyFromPem, verifySignature, type TSigningKey } from './signing-key';
