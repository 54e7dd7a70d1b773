// Builds the web dashboard into dist/web, which the dashboard role serves at `/` (src/http/web.ts).
// No inline script or style is emitted, so the served Content-Security-Policy can stay strict.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { requestValidators } from './build/request-validators.ts';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react(), requestValidators()],
  resolve: {
    // Radix's scroll lock injects a <style> the CSP refuses; the stand-in styles through styles.css.
    alias: [
      {
        find: /^react-remove-scroll-bar$/,
        replacement: fileURLToPath(new URL('./src/shims/remove-scroll-bar.tsx', import.meta.url)),
      },
    ],
  },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
