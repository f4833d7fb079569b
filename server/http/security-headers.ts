import helmet from 'helmet';
import type { RequestHandler } from 'express';
import type { TConfig } from '../core/config';

/** helmet's headers with a CSP the SPA runs under: its own scripts, styles, images and SSE only. */
export function securityHeaders(config: TConfig) {
  const https = config.siteUrl.startsWith('https://');
  return helmet({
    contentSecurityPolicy: {
      useDefaults: true,
      directives: {
        'default-src': ["'self'"],
        'script-src': ["'self'"],
        'style-src': ["'self'", "'unsafe-inline'"], // React style attributes; no third-party styles
        'img-src': ["'self'", 'data:', 'blob:'], // blob: the preview of a photo about to be sent
        'media-src': ["'self'"],
        'connect-src': ["'self'"],
        'frame-ancestors': ["'none'"],
        'form-action': ["'self'"],
        // Only on an https site: on plain http (local, demo) it would break every request.
        'upgrade-insecure-requests': https ? [] : null,
      },
    },
    strictTransportSecurity: https,
  });
}

/**
 * For the export routes: the SPA downloads a court bundle through a hidden frame of its own (a bundle
 * can be gigabytes: the browser's download manager saves it, not the page), and when the server
 * refuses, the page reads the refusal's sentence from that frame. Its answers are a file or inert
 * JSON, so only this site may frame them.
 */
export const framedBySelfOnly: RequestHandler = (_req, res, next) => {
  res.setHeader('Content-Security-Policy', "default-src 'none'; frame-ancestors 'self'");
  res.setHeader('X-Frame-Options', 'SAMEORIGIN');
  next();
};
