import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';

// A software authenticator for tests without a browser: it makes ES256 passkeys and answers with
// attestation "none" and assertions as the WebAuthn spec lays them out (authenticator data,
// clientDataJSON, an ECDSA signature over both), so the server checks real cryptography.

type TCbor = number | string | Uint8Array | TCbor[] | Map<TCbor, TCbor>;

function cborHead(major: number, n: number): Buffer {
  if (n < 24) return Buffer.from([(major << 5) | n]);
  if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
  if (n < 0x10000) return Buffer.from([(major << 5) | 25, n >> 8, n & 0xff]);
  const b = Buffer.alloc(5);
  b[0] = (major << 5) | 26;
  b.writeUInt32BE(n, 1);
  return b;
}

/** The few CBOR types attestation objects and COSE keys use. */
function cbor(value: TCbor): Buffer {
  if (typeof value === 'number') return value >= 0 ? cborHead(0, value) : cborHead(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([cborHead(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([cborHead(2, value.length), value]);
  if (Array.isArray(value)) return Buffer.concat([cborHead(4, value.length), ...value.map(cbor)]);
  return Buffer.concat([cborHead(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])]);
}

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest();
const b64url = (data: Buffer | Uint8Array) => Buffer.from(data).toString('base64url');

const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

type TStoredCredential = { id: Buffer; privateKey: KeyObject; rpId: string; userHandle: string; counter: number };

export type TCreationOptions = { challenge: string; rp: { id?: string }; user: { id: string } };
export type TRequestOptions = { challenge: string; rpId?: string };
/** What a test may change about one answer, to see the server refuse it. */
export type TAnswerOverrides = { origin?: string; challenge?: string; userVerified?: boolean; counter?: number; tamper?: boolean };

export class SoftAuthenticator {
  readonly credentials: TStoredCredential[] = [];

  /** `keepsCounter`: counts its signatures (as a security key does); otherwise always 0 (as many passkeys do). */
  constructor(
    private readonly origin: string,
    private readonly keepsCounter = true,
  ) {}

  /** navigator.credentials.create(): a new ES256 credential, answered with attestation "none". */
  register(options: TCreationOptions, overrides: TAnswerOverrides = {}) {
    const rpId = options.rp.id ?? new URL(this.origin).hostname;
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const jwk = publicKey.export({ format: 'jwk' });
    const id = randomBytes(32);
    const coseKey = cbor(
      new Map<TCbor, TCbor>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, Buffer.from(jwk.x!, 'base64url')],
        [-3, Buffer.from(jwk.y!, 'base64url')],
      ]),
    );
    const idLength = Buffer.alloc(2);
    idLength.writeUInt16BE(id.length);
    const authData = Buffer.concat([this.authDataHead(rpId, 0, overrides, AT), Buffer.alloc(16), idLength, id, coseKey]);
    const attestationObject = cbor(
      new Map<TCbor, TCbor>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', authData],
      ]),
    );
    this.credentials.push({ id, privateKey, rpId, userHandle: options.user.id, counter: 0 });
    return {
      id: b64url(id),
      rawId: b64url(id),
      type: 'public-key' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON: this.clientData('webauthn.create', options.challenge, overrides),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
    };
  }

  /** navigator.credentials.get() with no allow-list: the newest passkey this authenticator holds for the RP. */
  assert(options: TRequestOptions, overrides: TAnswerOverrides = {}, credential = this.credentials.at(-1)) {
    if (!credential) throw new Error('This authenticator holds no passkey');
    const rpId = options.rpId ?? credential.rpId;
    if (this.keepsCounter) credential.counter += 1;
    const authData = this.authDataHead(rpId, overrides.counter ?? credential.counter, overrides, 0);
    const clientDataJSON = this.clientData('webauthn.get', options.challenge, overrides);
    const signature = sign('sha256', Buffer.concat([authData, sha256(Buffer.from(clientDataJSON, 'base64url'))]), credential.privateKey);
    // A bit of r flipped: still well-formed DER, no longer a valid signature.
    if (overrides.tamper) signature[10]! ^= 0x01;
    return {
      id: b64url(credential.id),
      rawId: b64url(credential.id),
      type: 'public-key' as const,
      clientExtensionResults: {},
      response: {
        clientDataJSON,
        authenticatorData: b64url(authData),
        signature: b64url(signature),
        userHandle: credential.userHandle,
      },
    };
  }

  private authDataHead(rpId: string, counter: number, overrides: TAnswerOverrides, extraFlags: number): Buffer {
    const count = Buffer.alloc(4);
    count.writeUInt32BE(counter);
    const flags = UP | (overrides.userVerified === false ? 0 : UV) | extraFlags;
    return Buffer.concat([sha256(rpId), Buffer.from([flags]), count]);
  }

  private clientData(type: string, challenge: string, overrides: TAnswerOverrides): string {
    const data = { type, challenge: overrides.challenge ?? challenge, origin: overrides.origin ?? this.origin, crossOrigin: false };
    return b64url(Buffer.from(JSON.stringify(data)));
  }
}
