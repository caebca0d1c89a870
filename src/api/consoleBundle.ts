// The console's browser code (console/ at the repository root), bundled on first request with
// esbuild, the compiler tsx runs the service with: there is nothing to build before `npm start`,
// and the bundle is never older than its source. Asset names carry a hash of their bytes, so
// browsers may keep them for good.
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

export interface ConsoleAsset {
  /** `console-<hash>.js` or `.css`. */
  name: string;
  contentType: string;
  data: Buffer;
}

export interface ConsoleBundle {
  script: ConsoleAsset;
  styles: ConsoleAsset;
}

const ENTRY = fileURLToPath(new URL('../../console/main.tsx', import.meta.url));

let building: Promise<ConsoleBundle> | null = null;

/** The bundle, built once per process (again after a failed build). */
export function consoleBundle(): Promise<ConsoleBundle> {
  if (!building) {
    building = build();
    building.catch(() => (building = null));
  }
  return building;
}

async function build(): Promise<ConsoleBundle> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    outdir: 'out',
    bundle: true,
    write: false,
    minify: true,
    format: 'esm',
    target: ['es2022'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'silent',
  });
  const asset = (extension: 'js' | 'css', contentType: string): ConsoleAsset => {
    const file = result.outputFiles.find((f) => f.path.endsWith(`.${extension}`));
    const data = Buffer.from(file?.contents ?? new Uint8Array());
    return { name: `console-${createHash('sha256').update(data).digest('hex').slice(0, 16)}.${extension}`, contentType, data };
  };
  return { script: asset('js', 'text/javascript; charset=utf-8'), styles: asset('css', 'text/css; charset=utf-8') };
}
