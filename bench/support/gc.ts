// A forced garbage collection for the benchmarks' memory deltas (the flag is set at run time, so
// that `tsx bench/….ts` needs no node option).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
export const gc = runInNewContext('gc') as () => void;
