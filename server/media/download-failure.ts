import { formatBytes } from '../../shared/media-limits';
import { ProviderError } from '../provider';
import { FileTooLargeError } from './media-store';

// Why a download try failed, in words for the thread (server/media/README.md "Files"): each names its cause — a
// link that is not http(s) or that points elsewhere says so, with the host, never "HTTP 200".

/** Said of an inbound file while no provider key is set: kept as the file's error. */
export const NO_DOWNLOADS_IN_DEMO = 'Files cannot be downloaded in demo mode (MESSAGING_API_KEY is not set).';

/** Why a try failed; `final` failures are not tried again. */
export class DownloadFailure extends Error {
  override name = 'DownloadFailure';
  constructor(
    message: string,
    readonly final: boolean,
  ) {
    super(message);
  }
}

/** A try whose store was fenced off: another instance's try now decides (its lease was taken over). */
export const SUPERSEDED = 'superseded';

/**
 * Why the provider's media link is not used, or null when it may be: only http(s) is. Its host is
 * replaced by the provider's when it is fetched (the key goes to the provider only), so a foreign
 * http(s) host is not a refusal here; a redirect to one is (downloadFailureOf).
 */
export function refusedLinkReason(url: string): string | null {
  const link = URL.canParse(url) ? new URL(url) : null;
  if (!link) return "The provider's link to this file is not a URL; it was not followed.";
  if (link.protocol === 'https:' || link.protocol === 'http:') return null;
  const where = link.host ? ` on ${link.host}` : '';
  return `The provider's link to this file is not http(s) (${link.protocol}${where}); it was not followed.`;
}

/** "64 KB/s", "512 B/s": a floor rate as the thread says it, in the words file sizes use. */
export function formatRate(bytesPerSecond: number): string {
  return `${formatBytes(Math.round(bytesPerSecond))}/s`;
}

function providerFailure(error: ProviderError): DownloadFailure {
  switch (error.kind) {
    case 'not_found':
    case 'bad_request':
      return new DownloadFailure(`The provider no longer has this file (HTTP ${error.status}); ask the client to send it again.`, true);
    case 'not_configured':
      return new DownloadFailure(NO_DOWNLOADS_IN_DEMO, true);
    case 'unauthorized':
      return new DownloadFailure('The provider refused the download (check MESSAGING_API_KEY).', false);
    case 'timeout':
      return new DownloadFailure('The provider stopped sending the file (timed out).', false);
    case 'network':
      return new DownloadFailure('The provider could not be reached.', false);
    case 'redirect': {
      // The key header would go wherever the redirect points: never followed (server/README.md "Security and reliability").
      const status = error.status !== null ? ` (HTTP ${error.status})` : '';
      return new DownloadFailure(
        error.detail
          ? `The provider's link to this file points to another host (${error.detail}) through a redirect${status}, which is not followed: the key goes to the provider only.`
          : `The provider's link to this file redirects elsewhere${status}, which is not followed: the key goes to the provider only.`,
        false,
      );
    }
    default:
      // A 2xx answer that could not be used (no link in the media answer, no body) is not "HTTP 200".
      if (error.status !== null && error.status >= 200 && error.status < 300)
        return new DownloadFailure(`The provider's answer about this file could not be used (${error.detail ?? 'no file in it'}).`, false);
      return new DownloadFailure(`The provider could not send the file (HTTP ${error.status ?? '?'}).`, false);
  }
}

/** The failure a try's error means for the file. */
export function downloadFailureOf(error: unknown): DownloadFailure {
  if (error instanceof DownloadFailure) return error;
  if (error instanceof FileTooLargeError) return new DownloadFailure('The file is larger than 100 MB; it was not downloaded.', true);
  if (error instanceof ProviderError) return providerFailure(error);
  return new DownloadFailure('The download failed.', false);
}
