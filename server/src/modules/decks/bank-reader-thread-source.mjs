// The bank-reader thread when the server runs from its TypeScript sources (tests, `pnpm dev`): a
// worker thread does not inherit the tsx loader, so it registers it before loading the thread.
import { register } from 'tsx/esm/api';

register();
await import('./bank-reader-thread.ts');
