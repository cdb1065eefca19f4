import type { StrataStore } from './store'

/**
 * The store with some of its methods replaced: a call of an overridden method goes to the override,
 * everything else (name, flags, version, optional methods present or not) is the store's own, its
 * methods called on the store itself (bound once), so a class store's private fields keep working.
 */
export function storeWithOverrides(
  store: StrataStore,
  overrides: ReadonlyMap<PropertyKey, unknown>,
): StrataStore {
  const methods = new Map(overrides)
  return new Proxy(store, {
    get(target, key) {
      const method = methods.get(key)
      if (method !== undefined) return method
      const value: unknown = Reflect.get(target, key, target)
      if (typeof value !== 'function') return value
      const bound = value.bind(target)
      methods.set(key, bound)
      return bound
    },
  })
}
