import type { AuthenticationExtensionsClientOutputs } from '@simplewebauthn/server';
import { z } from 'zod';

// The browser's answers as @simplewebauthn/browser sends them (base64url fields), checked in shape
// before any cryptography; the library checks what they say.

const base64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+$/, 'Not base64url');

const common = {
  id: base64url(1400),
  rawId: base64url(1400),
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: z
    .custom<AuthenticationExtensionsClientOutputs>((v) => typeof v === 'object' && v !== null && !Array.isArray(v), 'Not an object')
    .default({}),
};

export const ZRegistrationResponse = z.object({
  ...common,
  response: z.object({
    clientDataJSON: base64url(10_000),
    attestationObject: base64url(100_000),
    authenticatorData: base64url(100_000).optional(),
    transports: z.array(z.string().max(40)).max(10).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: base64url(10_000).optional(),
  }),
});

export const ZAuthenticationResponse = z.object({
  ...common,
  response: z.object({
    clientDataJSON: base64url(10_000),
    authenticatorData: base64url(10_000),
    signature: base64url(2_000),
    userHandle: base64url(200).optional(),
  }),
});

export type TRegistrationResponse = z.infer<typeof ZRegistrationResponse>;
export type TAuthenticationResponse = z.infer<typeof ZAuthenticationResponse>;
