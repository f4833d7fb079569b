import { ProviderError } from '../provider';
import type { ProviderClient } from '../provider';

export const CONNECTION_STATUSES = [
  'Live',
  'Demo mode',
  'Unauthorized',
  'Not provisioned',
  'Rate-limited',
  'Unreachable',
  'Error',
] as const;
export type TConnectionStatus = (typeof CONNECTION_STATUSES)[number];
export type TConnectionResult = { status: TConnectionStatus; detail: string };

/** The connection check (server/messaging/README.md "Sending messages", Check connection): a read-only profile call mapped to one status. */
export async function checkConnection(provider: ProviderClient | null): Promise<TConnectionResult> {
  if (!provider) return { status: 'Demo mode', detail: 'MESSAGING_API_KEY is not set: messages are recorded locally and nothing is sent.' };
  try {
    const profile = await provider.getProfile();
    const parts = [
      profile.verifiedName && `Verified name: ${profile.verifiedName}`,
      profile.qualityRating && `Quality rating: ${profile.qualityRating}`,
    ].filter(Boolean);
    return { status: 'Live', detail: parts.length ? parts.join(' · ') : 'The provider accepted the API key.' };
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    switch (error.kind) {
      case 'not_configured':
        return { status: 'Demo mode', detail: error.message };
      case 'unauthorized':
        return { status: 'Unauthorized', detail: `${error.message} (HTTP ${error.status})` };
      case 'not_found':
        return {
          status: 'Not provisioned',
          detail:
            'The provider does not know this number or profile (HTTP 404): finish provisioning, display-name approval and verification.',
        };
      case 'rate_limited':
        return { status: 'Rate-limited', detail: 'The provider is rate-limiting requests (HTTP 429); try again in a few minutes.' };
      case 'network':
      case 'timeout':
        return { status: 'Unreachable', detail: error.message };
      default:
        return { status: 'Error', detail: `HTTP ${error.status ?? 'unknown'}${error.detail ? `: ${error.detail}` : ''}` };
    }
  }
}
