// `node --import tsx --import ./bench/support/lineProfile.mjs …`: TypeScript compiled without
// minifying (lineProfileHooks.mjs), so that `--cpu-prof` profiles keep their lines. Registered
// after tsx's hooks, these run first and answer for .ts files; tsx still serves everything else.
import { register } from 'node:module';

register('./lineProfileHooks.mjs', import.meta.url);
