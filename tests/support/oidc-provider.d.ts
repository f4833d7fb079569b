// oidc-provider (v8, a dev dependency for the single sign-on tests) ships no types: the little of it
// tests/support/oidc-test-provider.ts uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  type TClaims = Record<string, unknown>;
  type TAccount = { accountId: string; claims: (use: string, scope: string) => Promise<TClaims> };

  class Grant {
    constructor(properties: { accountId: string; clientId: string });
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  }

  export default class Provider {
    constructor(
      issuer: string,
      configuration: Record<string, unknown> & { findAccount?: (ctx: unknown, id: string) => Promise<TAccount | undefined> },
    );
    Grant: typeof Grant;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    interactionDetails(
      req: IncomingMessage,
      res: ServerResponse,
    ): Promise<{ uid: string; params: Record<string, unknown>; prompt: { name: string } }>;
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>;
  }
}
