// The SDK as one ES module for a page's `<script type="module">` (what the installation serves at
// /clients/mongobaas.js): bundled and minified by esbuild for browsers, with no Node built-in.
import { build } from 'esbuild';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export async function bundleSdk(): Promise<string> {
  const result = await build({
    entryPoints: [fileURLToPath(new URL('./src/index.ts', import.meta.url))],
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    legalComments: 'none',
  });
  return result.outputFiles[0]!.text;
}

// `tsx sdk/bundle.ts <file>` writes it (scripts/build-clients.sh).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1] && process.argv[2]) {
  writeFileSync(process.argv[2], await bundleSdk());
}
