// Entry of an embedding thread (threads.ts): the thread's code is TypeScript, run through tsx as
// the rest of kcs is.
import { register } from 'tsx/esm/api';

register();
await import('./thread.ts');
