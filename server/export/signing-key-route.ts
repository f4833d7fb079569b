import type { RequestHandler } from 'express';
import { SIGNATURE_ALGORITHM, type TPublicKey } from './export-signature';

/** Where the firm's public key is published. */
export const SIGNING_KEY_PATH = '/api/signing-key';
/** The name a downloaded public key is saved under. */
export const SIGNING_KEY_FILE_NAME = 'firm-chat-signing-key.pem';

/**
 * `GET /api/signing-key` (server/export/README.md "Signed exports"): the firm's public key and its
 * fingerprint, so anyone holding an export can check its signature without Firm Chat. Public, no
 * sign-in: it is a public key. `?format=pem` or `Accept: application/x-pem-file` answers the PEM file.
 */
export function serveSigningKey(key: TPublicKey): RequestHandler {
  return (req, res) => {
    const asPem = req.query.format === 'pem' || (req.headers.accept ?? '').toLowerCase().includes('application/x-pem-file');
    res.set('Cache-Control', 'no-cache');
    if (asPem) {
      res
        .status(200)
        .type('application/x-pem-file')
        .set('Content-Disposition', `attachment; filename="${SIGNING_KEY_FILE_NAME}"`)
        .send(key.publicKeyPem);
      return;
    }
    res.status(200).json({ publicKeyPem: key.publicKeyPem, fingerprint: key.fingerprint, algorithm: SIGNATURE_ALGORITHM });
  };
}
