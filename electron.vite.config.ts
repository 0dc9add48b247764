// Builds the Electron main process (plus a headless entry that never imports electron), the preload and the
// renderer. Dependencies stay external in main: better-sqlite3 is native and loaded from node_modules.
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      externalizeDeps: true,
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/electron/main.ts'),
          headless: resolve(__dirname, 'src-main/cli/main.ts'),
          // A worker thread entry of its own: run-batch-in-worker looks for it next to the bundled main.
          'batch-csv-worker': resolve(__dirname, 'src-main/jobs/batch-csv-worker.ts'),
        },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      externalizeDeps: false,
      // A sandboxed preload cannot be an ES module: emit CommonJS (index.cjs), which main.ts loads.
      rollupOptions: { input: { index: resolve(__dirname, 'src-main/electron/preload.ts') }, output: { format: 'cjs', entryFileNames: '[name].cjs' } },
    },
  },
  renderer: {
    root: 'src-renderer',
    base: './',
    plugins: [react()],
    build: {
      outDir: 'out/renderer',
      minify: true,
      chunkSizeWarningLimit: 2000,
      rollupOptions: { input: resolve(__dirname, 'src-renderer/index.html') },
    },
  },
});
