import type { FrameworkTracer, TelemetryTracer } from './telemetry-tracer'

/**
 * Which tracer a memory's spans start on: the app's (`createMemory({ telemetry: { tracer } })`) when it
 * gave one, else the first framework tracer an adapter passed that has a trace running now, else none.
 */
export class MemoryTracing {
  readonly #app: TelemetryTracer | undefined
  readonly #frameworks = new Map<string, FrameworkTracer>()
  /** The frameworks' tracers in adoption order, walked by index: `current()` runs on every store call. */
  #frameworkList: FrameworkTracer[] = []

  constructor(app: TelemetryTracer | undefined) {
    this.#app = app
  }

  /** True once there is a tracer that may start spans: the app's, or an adapter's. */
  get enabled(): boolean {
    return this.#app !== undefined || this.#frameworks.size > 0
  }

  /** The tracer for a span starting now, or undefined: no span work at all. */
  current(): TelemetryTracer | undefined {
    if (this.#app !== undefined) return this.#app
    const list = this.#frameworkList
    for (let index = 0; index < list.length; index++) {
      const tracer = list[index]!()
      if (tracer !== undefined) return tracer
    }
    return undefined
  }

  /**
   * Keeps `tracer` under `name`, replacing what that name held. Ignored (false) when the app gave a
   * tracer: the app's choice wins.
   */
  adopt(name: string, tracer: FrameworkTracer): boolean {
    if (this.#app !== undefined) return false
    this.#frameworks.set(name, tracer)
    this.#frameworkList = [...this.#frameworks.values()]
    return true
  }
}
