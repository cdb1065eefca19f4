import type { StrataStore } from '../stores'
import type { AuditDamage } from './store-conformance-audit'

/** Options of {@link describeStoreConformance}. */
export interface StoreConformanceOptions {
  /**
   * Runs after each test, before the store is closed: remove a temporary directory, flush a test
   * database. The suite already deletes every thread it created.
   */
  cleanup?: (store: StrataStore) => Promise<void>
  /**
   * A second store over the same data as `store` (the same folder, database and prefix), as another
   * process would open it; the suite closes it after the test. Left out, the cases across two stores
   * (what one writes, the other's next query shows) are skipped.
   */
  twin?: (store: StrataStore) => StrataStore | Promise<StrataStore>
  /**
   * Whether the store implements the optional content capability (`putContent`, `getContent`,
   * `queryContent`). With `false` the content cases are skipped and the suite checks that the store
   * has none of the content methods, so core refuses it unless the content channel is off.
   * @default true
   */
  content?: boolean
  /**
   * Whether the store implements the lease capability (contract `v2`, `flags.leases`). With `false`
   * the lease cases are skipped and the suite checks that the store does not declare it.
   * @default true
   */
  leases?: boolean
  /**
   * Whether the store implements the resource capability (contract `v2`, `flags.resources`). Left out,
   * the resource cases run when the store declares it and are skipped when it does not; given, the suite
   * also checks the store declares exactly that.
   */
  resources?: boolean
  /**
   * Whether the store implements the audit capability (contract `v2`, `flags.audit`). Left out, the
   * audit cases run when the store has `audit()`; given, the suite also checks the store declares it.
   */
  audit?: boolean
  /**
   * Whether the store implements the slot capability (contract `v2`, `flags.slots`). Left out, the slot
   * cases run when the store declares it; given, the suite also checks the store declares it.
   */
  slots?: boolean
  /**
   * How to damage a thread below the store's interface (a torn tail, a lost item, an interrupted
   * archive), for the audit cases: each case whose damage is not given is skipped.
   */
  auditDamage?: AuditDamage
}
