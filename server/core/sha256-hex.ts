/** sha256 as the provider writes it (hex in the media answer, base64 in webhooks), as hex; null if neither. */
export function sha256Hex(value: string | null): string | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^[0-9a-f]{64}$/i.test(trimmed)) return trimmed.toLowerCase();
  if (/^[A-Za-z0-9+/]{43}=$/.test(trimmed)) return Buffer.from(trimmed, 'base64').toString('hex');
  return null;
}
