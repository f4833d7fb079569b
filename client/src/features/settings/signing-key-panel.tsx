import { useQuery } from '@tanstack/react-query';
import * as z from 'zod/mini';

// The firm's public signing key (server/export/README.md "Signed exports"): its fingerprint to read out
// to the other side, and the key to hand them so they can check an export's signature without us.

const SIGNING_KEY_URL = '/api/signing-key';
const ZSigningKey = z.object({ fingerprint: z.string().check(z.regex(/^[0-9a-f]{64}$/)), algorithm: z.string() });

async function fetchSigningKey(): Promise<z.infer<typeof ZSigningKey>> {
  const res = await fetch(SIGNING_KEY_URL);
  if (!res.ok) throw new Error('The signing key could not be read.');
  return ZSigningKey.parse(await res.json());
}

/** "1a2b 3c4d …": groups of four, easier to read aloud and compare. */
export const groupFingerprint = (fingerprint: string) => fingerprint.match(/.{1,4}/g)?.join(' ') ?? fingerprint;

export function SigningKeyPanel() {
  const key = useQuery({ queryKey: ['signing-key'], queryFn: fetchSigningKey, staleTime: Infinity });
  return (
    <section className="card" aria-labelledby="signing-key-title">
      <h2 id="signing-key-title">Signing key</h2>
      <p className="muted">
        Every export and court bundle is signed with the firm’s key. Give this public key to anyone who needs to check a copy.
      </p>
      {key.data ? (
        <>
          <p>
            {key.data.algorithm} fingerprint (SHA-256):{' '}
            <code className="fingerprint" aria-label="Signing key fingerprint">
              {groupFingerprint(key.data.fingerprint)}
            </code>
          </p>
          <a className="button" href={`${SIGNING_KEY_URL}?format=pem`} download="firm-chat-signing-key.pem">
            Download public key
          </a>
        </>
      ) : key.error ? (
        <p className="form-error" role="alert">
          {key.error.message}
        </p>
      ) : (
        <p className="muted">Loading the signing key…</p>
      )}
    </section>
  );
}
