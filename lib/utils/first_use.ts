/**
 * Code loaded on first use: a module the kit imports only when a call needs
 * it, so that `import 'toolsmith'` does not compile it.
 *
 * @module
 */

/**
 * Wrap a loader so that it runs once, on the first call; every later call
 * gets the same promise (one resolved `await`, no new `import()`).
 *
 * @param load - Starts the load: an arrow returning a dynamic import with a
 *   literal specifier, so that a bundler puts the module in a chunk of its own.
 * @returns The memoised loader.
 * @internal
 */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  let loaded: Promise<T> | undefined
  return () => {
    loaded ??= load()
    return loaded
  }
}
