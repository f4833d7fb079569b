import * as client from 'openid-client';
import type { TOidcConfig } from '../../core/config';

/** The provider's metadata, read once (and again after a failed read), for building and checking requests. */
export type TOidcClient = { configuration(): Promise<client.Configuration> };

export function createOidcClient(config: TOidcConfig): TOidcClient {
  let discovered: Promise<client.Configuration> | null = null;
  return {
    configuration() {
      discovered ??= client
        .discovery(
          new URL(config.issuer),
          config.clientId,
          { client_secret: config.clientSecret },
          client.ClientSecretPost(config.clientSecret),
          {
            // http:// only ever passes config for a provider on this machine (a development or test one).
            execute: new URL(config.issuer).protocol === 'http:' ? [client.allowInsecureRequests] : [],
            timeout: 10,
          },
        )
        .catch((error: unknown) => {
          discovered = null; // the provider was away: the next sign-in asks again
          throw error;
        });
      return discovered;
    },
  };
}
