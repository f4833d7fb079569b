import { buildSpa, spaIsStale } from '../../server/scripts/spa-build';

// The e2e project's global setup: the SPA built once, before any worker runs `npm start`, so two
// workers' apps never both decide it is stale and build into dist/client at the same time. The rule
// and the (production) build are `npm start`'s own.
export default async function setup(): Promise<void> {
  if (spaIsStale()) await buildSpa();
}
