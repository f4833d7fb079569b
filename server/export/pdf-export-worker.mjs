// The PDF worker's entry: Node starts workers without the server's TypeScript loader, so this
// registers tsx for the thread, then loads the worker itself.
import { register } from 'tsx/esm/api';

register();
await import('./pdf-export-worker.ts');
