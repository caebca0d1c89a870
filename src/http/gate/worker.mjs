// The gate thread's entry (thread.ts): a thread starts without the parent's TypeScript loader,
// so it registers tsx itself before it loads the gate.
import { register } from 'tsx/esm/api';

register();
await import('./threadMain.ts');
