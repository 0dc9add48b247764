// Builds the Electron main process (plus a headless entry that never imports electron), the preload and the
// renderer. Dependencies stay external in main (better-sqlite3 is native and loaded from node_modules), except the
// ones bundled or loaded lazily below, for the start's sake (docs/performance.md, "Cold start").
import { resolve } from 'node:path';
import { defineConfig } from 'electron-vite';
import react from '@vitejs/plugin-react';

// Packages the main process loads on first use instead of at start (docs/performance.md, "Cold start"): each
// import of one of them resolves to its stand-in under src-main/lazy-externals/, which requires the real package
// the first time one of its exports is used. Only here: vitest and the renderer import the packages themselves.
const LAZY_EXTERNALS = ['undici', 'jose', 'libphonenumber-js', 'i18n-iso-countries', 'ibantools', 'papaparse'];
// Packages bundled into main rather than loaded from node_modules, file by file, at every start: Fastify (with its
// own dependencies) and pino are about a hundred CommonJS files and zod dozens of ES modules, which Node resolves,
// reads and compiles one by one; bundled they load in about half the time. fastify-type-provider-zod comes with zod,
// so that there is one zod in the process.
const BUNDLED = ['fastify', 'pino', 'zod', 'fastify-type-provider-zod'];
// Never loaded (the route schemas are zod, with their own compilers: http/app.ts), so left out of the bundle.
const NEVER_LOADED = ['@fastify/ajv-compiler', '@fastify/fast-json-stringify-compiler'];

export default defineConfig({
  main: {
    resolve: {
      alias: LAZY_EXTERNALS.map((name) => ({ find: new RegExp(`^${name.replace(/[.]/g, '\\.')}$`), replacement: resolve(__dirname, 'src-main/lazy-externals', `${name}.ts`) })),
    },
    build: {
      outDir: 'out/main',
      // The lazy ones are not external: their imports resolve to the stand-ins (which require the real packages).
      externalizeDeps: { exclude: [...LAZY_EXTERNALS, ...BUNDLED], include: NEVER_LOADED },
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/electron/main.ts'),
          headless: resolve(__dirname, 'src-main/cli/headless.ts'),
          // A worker thread entry of its own: run-batch-in-worker looks for it next to the bundled main.
          'batch-csv-worker': resolve(__dirname, 'src-main/jobs/batch-csv-worker.ts'),
        },
        // The bundled packages in a chunk of their own (all of them load at start), apart from our code.
        output: { manualChunks: (id: string) => (id.includes('/node_modules/') ? 'vendor' : undefined) },
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
