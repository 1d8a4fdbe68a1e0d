import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The portal is served by the API server at /portal from dist/portal; no CDN, no dev server needed.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/portal/',
  logLevel: 'warn',
  resolve: {
    alias: { '@docsmith/client': fileURLToPath(new URL('../packages/client/src/index.ts', import.meta.url)) },
  },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/portal', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1024,
  },
});
