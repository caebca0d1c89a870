// The hook a document write calls before it is answered, so this process's search engine sees
// the write at once (read-your-writes; other processes catch up from the change stream).
import type { DocumentRef } from '../search/engine.js';

export type SearchRefresh = (tenantId: string, changed: DocumentRef[]) => Promise<void>;
export const noSearchRefresh: SearchRefresh = async () => undefined;
