/**
 * An object built on first use, behind a stable reference.
 *
 * @module
 */

/**
 * A stand-in for an object that `create` builds the first time anything
 * touches the stand-in (a property read or write, `in`, `Object.keys`, its
 * prototype…); every operation then goes to that one object.
 *
 * @remarks
 * For a value a module must export, or a class must hold in a static field,
 * that is costly to build and often never used: an ES module's export is a
 * binding, not a getter, so a lazy export needs a proxy. The kit's joi root
 * (`validator`) and its module-level joi schemas are such values: building
 * them loads joi, which is most of what `import 'toolsmith'` would
 * otherwise cost. A method called through the stand-in gets the stand-in as
 * `this`, which forwards every read, so the object's own code works
 * unchanged.
 *
 * @param create - Builds the object; called at most once.
 * @returns The stand-in, typed as the object.
 * @internal
 */
export function lazyObject<T extends object>(create: () => T): T {
  let built: T | undefined
  const real = (): T => (built ??= create())
  // The target stays an extensible object of one property: the traps
  // answer for the real one, and a proxy may report any configurable
  // property of an extensible target. Node's `util.inspect` formats a
  // proxy's target without running its traps: the target's custom inspect
  // shows the real object instead of `{}`.
  const target = {
    [Symbol.for('nodejs.util.inspect.custom')]: (_depth: number, options: object, inspect: (value: unknown, options: object) => string) => inspect(real(), options),
  }
  return new Proxy(target as unknown as T, {
    get: (_target, key) => Reflect.get(real(), key),
    set: (_target, key, value) => Reflect.set(real(), key, value),
    has: (_target, key) => Reflect.has(real(), key),
    deleteProperty: (_target, key) => Reflect.deleteProperty(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_target, key) => {
      const descriptor = Reflect.getOwnPropertyDescriptor(real(), key)
      return descriptor === undefined ? undefined : { ...descriptor, configurable: true }
    },
    defineProperty: (_target, key, descriptor) => Reflect.defineProperty(real(), key, descriptor),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
    // Freezing the stand-in would freeze its target, after which the traps
    // above break the proxy's invariants and every use throws: refused
    // instead (`Object.freeze` throws a TypeError, the stand-in still works).
    preventExtensions: () => false,
  })
}
