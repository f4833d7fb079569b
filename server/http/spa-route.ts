import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type Router } from 'express';

export const CLIENT_DIST_DIR = path.resolve(import.meta.dirname, '../../dist/client');

/** The built SPA: hashed assets cached for a year, every other GET gets index.html (client-side routes). */
export function serveSpa(distDir = CLIENT_DIST_DIR): Router {
  const spa = express.Router();
  const indexHtml = path.join(distDir, 'index.html');
  spa.use('/assets', express.static(path.join(distDir, 'assets'), { immutable: true, maxAge: '1y', fallthrough: false }));
  spa.use(express.static(distDir, { index: false }));
  spa.get('/{*path}', (_req, res) => {
    if (!existsSync(indexHtml)) {
      res.status(503).type('text/plain').send('The client is not built yet: run `npm run build` (npm start does it for you).');
      return;
    }
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(indexHtml);
  });
  return spa;
}
