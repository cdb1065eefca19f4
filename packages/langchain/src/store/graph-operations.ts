import {
  type GetOperation,
  type ListNamespacesOperation,
  type Operation,
  type PutOperation,
  type SearchOperation,
  validateNamespace,
} from '@langchain/langgraph-checkpoint'
import { assertSerializable, invalidOptions } from '@strata-memory/core'

/** One operation of a `batch`, named by its kind, as LangGraph's stores tell them apart. */
export type GraphOperation =
  | { kind: 'get'; operation: GetOperation }
  | { kind: 'put'; operation: PutOperation }
  | { kind: 'search'; operation: SearchOperation }
  | { kind: 'list'; operation: ListNamespacesOperation }

const WHAT = 'strataGraphStore.batch()'

/**
 * A list, then LangGraph's own check, the one `BaseStore`'s methods run (its `InvalidNamespaceError`).
 * The reserved `langgraph` root passes, as in `InMemoryStore.batch`: only the `put` method refuses it.
 */
function checkNamespace(value: unknown, allowEmpty = false): void {
  if (!Array.isArray(value))
    invalidOptions(
      `${WHAT}: a namespace is a list of strings, e.g. ['user-42', 'memories']. Nothing was written.`,
      { namespace: value },
    )
  validateNamespace(value, { allowEmpty, allowReservedRoot: true })
}

function checkCount(value: unknown, name: string, minimum: number): void {
  if (value !== undefined && (typeof value !== 'number' || !Number.isInteger(value) || value < minimum))
    invalidOptions(`${WHAT}: ${name} must be an integer ≥ ${minimum}. Nothing was written.`, {
      [name]: value,
    })
}

/**
 * Names each operation's kind (LangGraph's rule: a prefix is a search, a `value` a put, a namespace
 * and key a get, `matchConditions` a namespace listing) and checks it before any runs, so a batch
 * with one bad operation writes nothing.
 */
export function classifyOperations(operations: readonly Operation[]): GraphOperation[] {
  if (!Array.isArray(operations)) invalidOptions(`${WHAT}: operations must be a list.`)
  return operations.map((operation): GraphOperation => {
    if (typeof operation !== 'object' || operation === null)
      invalidOptions(`${WHAT}: each operation is an object (get, put, search or listNamespaces).`)
    if ('namespacePrefix' in operation) {
      checkNamespace(operation.namespacePrefix, true)
      checkCount(operation.limit, 'limit', 1)
      checkCount(operation.offset, 'offset', 0)
      const { filter, query } = operation
      if (filter != null && (typeof filter !== 'object' || Array.isArray(filter)))
        invalidOptions(`${WHAT}: filter must be an object of fields and values, e.g. { kind: 'note' }.`)
      if (query != null && typeof query !== 'string') invalidOptions(`${WHAT}: query must be a string.`)
      return { kind: 'search', operation }
    }
    if ('namespace' in operation) {
      checkNamespace(operation.namespace)
      if (typeof operation.key !== 'string')
        invalidOptions(`${WHAT}: key must be a string. Nothing was written.`, {
          key: operation.key,
        })
      if (!('value' in operation)) return { kind: 'get', operation }
      const { value } = operation
      if (value !== null) {
        if (typeof value !== 'object' || Array.isArray(value))
          invalidOptions(
            `${WHAT}: a put's value is a JSON object (or null to delete), e.g. { text: '…' }. Nothing was written.`,
          )
        assertSerializable(value, 'value')
      }
      return { kind: 'put', operation }
    }
    if ('matchConditions' in operation) {
      for (const condition of operation.matchConditions ?? []) {
        if (condition.matchType !== 'prefix' && condition.matchType !== 'suffix')
          invalidOptions(`${WHAT}: a match condition's matchType is 'prefix' or 'suffix'.`, {
            matchType: condition.matchType,
          })
        checkNamespace(condition.path, true)
      }
      checkCount(operation.limit, 'limit', 1)
      checkCount(operation.offset, 'offset', 0)
      checkCount(operation.maxDepth, 'maxDepth', 1)
      return { kind: 'list', operation }
    }
    return invalidOptions(
      `${WHAT}: unknown operation ${JSON.stringify(Object.keys(operation))}: use a get ({ namespace, key }), a put ({ namespace, key, value }), a search ({ namespacePrefix }) or a listNamespaces ({ matchConditions, limit, offset }).`,
    )
  })
}
