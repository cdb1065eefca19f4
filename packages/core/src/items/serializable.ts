import { StrataError } from '../errors'
import { hasPlainPrototype } from './json'

/**
 * The deepest nesting a stored value may have (objects and arrays inside one another). Real tool
 * inputs, outputs and provider options stay far below it; a deeper value is almost always a bug or an
 * attack, and would overflow the stack of every recursive JSON walk (a store's, a provider's).
 */
export const MAX_JSON_DEPTH = 256

/**
 * The largest a message may be as JSON, in characters (about bytes for ASCII text): 32 MiB. One
 * append is one JSONL line or one Redis list entry; this keeps each far below what Node can hold in a
 * string (~512 MiB) and Redis in a value (512 MB), while large tool results still go to the content
 * channel, which cites them in the prompt.
 */
export const MAX_JSON_SIZE = 32 * 1024 * 1024

/** Where the walk is: the value, how deep, and how to name it in an error. */
interface Frame {
  value: unknown
  inArray: boolean
  depth: number
  parent: Frame | undefined
  key: string
  /** Set on the marker that takes an object off the current path once its children are done. */
  leaving?: object
}

const pathOf = (frame: Frame | undefined, label: string): string => {
  const keys: string[] = []
  for (let current = frame; current !== undefined; current = current.parent) keys.push(current.key)
  return label + keys.reverse().join('')
}

/**
 * Throws `STRATA_NOT_SERIALIZABLE` unless `value` survives a JSON round trip unchanged: no cycles,
 * BigInts, functions, symbols, `undefined` in arrays, non-finite numbers, or class instances other
 * than plain objects and arrays. `undefined` object properties are allowed (JSON drops them).
 * Throws `STRATA_INVALID_MESSAGE` for a value nested deeper than {@link MAX_JSON_DEPTH} or larger than
 * {@link MAX_JSON_SIZE} as JSON. The walk keeps its own stack, so no nesting overflows the call stack.
 */
export function assertSerializable(value: unknown, label = 'value'): void {
  // Nearly every value is plain JSON: a walk that allocates nothing settles it; only a value it
  // cannot pass takes the walk below, which names what is wrong.
  if (plainSize(value, false, 0, 0) >= 0) return
  const fail = (frame: Frame, what: string): never => {
    const path = pathOf(frame, label)
    throw new StrataError({
      code: 'STRATA_NOT_SERIALIZABLE',
      message: `${path} is ${what}, which cannot be stored as JSON. Convert it to plain JSON (strings, numbers, booleans, null, arrays, objects) before appending.`,
      details: { path },
    })
  }
  const tooLarge = (frame: Frame, reason: 'depth' | 'size'): never => {
    const path = pathOf(frame, label)
    throw new StrataError({
      code: 'STRATA_INVALID_MESSAGE',
      message:
        reason === 'depth'
          ? `${path} is nested more than ${MAX_JSON_DEPTH} levels deep, which Strata does not store. Flatten it, or store it as a string (JSON.stringify) if it must keep its shape.`
          : `${label} is larger than ${MAX_JSON_SIZE} characters as JSON, which Strata does not store in one message. Store large results through the content channel (memory_store), or split them.`,
      details: { reason, path, maxDepth: MAX_JSON_DEPTH, maxSize: MAX_JSON_SIZE },
    })
  }
  const ancestors = new Set<object>()
  const stack: Frame[] = [{ value, inArray: false, depth: 0, parent: undefined, key: '' }]
  let size = 0
  while (stack.length > 0) {
    const frame = stack.pop()!
    if (frame.leaving !== undefined) {
      ancestors.delete(frame.leaving)
      continue
    }
    const current = frame.value
    // The JSON text's length, counted generously (a number as its longest form), plus a separator.
    size += 1
    switch (typeof current) {
      case 'string':
        size += current.length + 2
        break
      case 'boolean':
        size += 5
        break
      case 'number':
        if (!Number.isFinite(current)) fail(frame, `the non-finite number ${current}`)
        size += 24
        break
      case 'bigint':
        fail(frame, 'a BigInt')
        break
      case 'function':
        fail(frame, 'a function')
        break
      case 'symbol':
        fail(frame, 'a symbol')
        break
      case 'undefined':
        if (frame.inArray) fail(frame, 'undefined inside an array')
        break
      default: {
        if (current === null) {
          size += 4
          break
        }
        const object = current as object
        if (ancestors.has(object)) fail(frame, 'a circular reference')
        if (!Array.isArray(object) && !hasPlainPrototype(object)) {
          fail(frame, `an instance of ${object.constructor?.name ?? 'a class'}`)
        }
        if (frame.depth >= MAX_JSON_DEPTH) tooLarge(frame, 'depth')
        size += 2
        ancestors.add(object)
        stack.push({ ...frame, leaving: object })
        const depth = frame.depth + 1
        // Children go on the stack last-first, so they are visited (and errors named) in order.
        if (Array.isArray(object)) {
          for (let index = object.length - 1; index >= 0; index--) {
            stack.push({ value: object[index], inArray: true, depth, parent: frame, key: `[${index}]` })
          }
        } else {
          const entries = Object.entries(object)
          for (let index = entries.length - 1; index >= 0; index--) {
            const [key, element] = entries[index]!
            size += key.length + 3
            stack.push({ value: element, inArray: false, depth, parent: frame, key: `.${key}` })
          }
        }
      }
    }
    if (size > MAX_JSON_SIZE) tooLarge(frame, 'size')
  }
}

/**
 * The size {@link assertSerializable} counts for a value, or -1 when the value is not plain JSON
 * within the limits (any reason, the first found: a cycle shows as too deep). Recursive, but never
 * deeper than {@link MAX_JSON_DEPTH}.
 */
function plainSize(value: unknown, inArray: boolean, depth: number, size: number): number {
  size += 1
  switch (typeof value) {
    case 'string':
      size += value.length + 2
      break
    case 'boolean':
      size += 5
      break
    case 'number':
      if (!Number.isFinite(value)) return -1
      size += 24
      break
    case 'undefined':
      if (inArray) return -1
      break
    case 'object': {
      if (value === null) {
        size += 4
        break
      }
      if (depth >= MAX_JSON_DEPTH) return -1
      size += 2
      if (Array.isArray(value)) {
        for (let index = 0; index < value.length && size >= 0; index++) {
          size = plainSize(value[index], true, depth + 1, size)
        }
        break
      }
      if (!hasPlainPrototype(value)) return -1
      const keys = Object.keys(value)
      for (let index = 0; index < keys.length && size >= 0; index++) {
        const key = keys[index]!
        size = plainSize((value as Record<string, unknown>)[key], false, depth + 1, size + key.length + 3)
      }
      break
    }
    default:
      return -1
  }
  return size > MAX_JSON_SIZE ? -1 : size
}
