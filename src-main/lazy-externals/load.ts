// Lazy externals (docs/performance.md, "Cold start"): in the built main process (electron.vite.config.ts aliases each
// package below to its file here) a heavy package a request may never need is loaded by its first use, not at start.
// Each file exports exactly the names the sources import from its package, with the package's own types; the
// package is `require`d (synchronously, so callers stay as they are) the first time one of them is used. The sources
// keep their plain imports, and vitest runs them against the real packages; test/unit/lazy-externals.test.ts
// checks the stand-ins against them.
import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);

/** The package, required on the first call (CommonJS, or an ES module through Node's require(esm)). */
export function lazyPackage<M>(id: string): () => M {
  let loaded: M | undefined;
  return () => (loaded ??= requireHere(id) as M);
}

/** A function export that loads its package when first called. */
export function lazyFunction<M, K extends keyof M>(load: () => M, key: K): M[K] {
  return function lazyCall(this: unknown, ...args: unknown[]): unknown {
    return (load()[key] as (...a: unknown[]) => unknown).apply(this, args);
  } as M[K];
}

/** A class export that loads its package when first constructed (`new` returns the package's own instance). */
export function lazyClass<M, K extends keyof M>(load: () => M, key: K): M[K] {
  return function LazyClass(...args: unknown[]): object {
    return Reflect.construct(load()[key] as new (...a: unknown[]) => object, args);
  } as M[K];
}

/** An object export (a default export, an enum) whose properties load its package when first read. */
export function lazyObject<T extends object>(load: () => T): T {
  return new Proxy({} as T, {
    get: (_, p) => Reflect.get(load(), p),
    has: (_, p) => Reflect.has(load(), p),
    ownKeys: () => Reflect.ownKeys(load()),
    getOwnPropertyDescriptor: (_, p) => {
      const d = Reflect.getOwnPropertyDescriptor(load(), p);
      return d ? { ...d, configurable: true } : undefined;
    },
  });
}
