// esbuild bundles the style sheets a module imports (consoleBundle.ts); TypeScript only needs to know they exist.
declare module '*.css';
