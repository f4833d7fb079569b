// A court bundle is saved by the browser's download manager, which tells the page nothing. So the
// page names its request with a random ticket, and the server answers a bundle it sends with a short-lived
// cookie under that ticket holding the ZIP's SHA-256 and size (server/export/README.md "Evidence exports"): the page
// reads it, shows the fingerprint, and expires it.

export const EXPORT_COOKIE_PREFIX = 'firm_chat_export_';
/** How often the page looks for the cookie. */
export const EXPORT_COOKIE_POLL_MS = 500;

export type TSavedExport = { sha256: string; bytes: number };

/** 32 random characters of base64url (24 bytes): what the server accepts as a ticket (16–64 of [A-Za-z0-9_-]). */
export function newExportTicket(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
}

export function exportCookieName(ticket: string): string {
  return `${EXPORT_COOKIE_PREFIX}${ticket}`;
}

/** The saved export the cookies (`document.cookie`) hold for this ticket, or null while there is none (or it is not one). */
export function readSavedExport(cookies: string, ticket: string): TSavedExport | null {
  const name = exportCookieName(ticket);
  for (const pair of cookies.split(';')) {
    const equals = pair.indexOf('=');
    if (equals < 0 || pair.slice(0, equals).trim() !== name) continue;
    const match = /^([0-9a-f]{64})\.(\d{1,16})$/.exec(pair.slice(equals + 1).trim());
    if (!match) return null;
    const bytes = Number(match[2]);
    return Number.isSafeInteger(bytes) ? { sha256: match[1]!, bytes } : null;
  }
  return null;
}

/** Expires the ticket's cookie: it has been read, and must not pile up with the next bundles'. */
export function forgetSavedExport(ticket: string): void {
  document.cookie = `${exportCookieName(ticket)}=; Path=/; Max-Age=0; SameSite=Strict`;
}

/**
 * Looks for the ticket's cookie every `EXPORT_COOKIE_POLL_MS` while `isWanted()` holds (someone is
 * waiting for the answer, or the download's frame is still there); once found, it is expired and
 * handed to `onSaved`. Returns a function that stops looking.
 */
export function watchSavedExport(ticket: string, isWanted: () => boolean, onSaved: (saved: TSavedExport) => void): () => void {
  const timer = setInterval(() => {
    const saved = readSavedExport(document.cookie, ticket);
    if (saved) {
      clearInterval(timer);
      forgetSavedExport(ticket);
      onSaved(saved);
    } else if (!isWanted()) clearInterval(timer);
  }, EXPORT_COOKIE_POLL_MS);
  return () => clearInterval(timer);
}
