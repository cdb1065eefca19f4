import { Writable } from 'node:stream'
import type { StrataStore } from '@strata-memory/core'
import { CommandContext, type GlobalOptions } from '../cli/command-context'
import { Output } from '../output/output'
import type { OpenStore } from '../store/open-store'

/** A stream that keeps what is written to it. */
class Collected extends Writable {
  text = ''
  override _write(chunk: Buffer | string, _encoding: BufferEncoding, done: () => void): void {
    this.text += chunk.toString()
    done()
  }
}

/**
 * A command context on a store given in the process (the in-memory store), its output collected:
 * for commands whose stores the built binary cannot open yet. Commands see it exactly as the one
 * `strata` builds, but for `store()`.
 */
export class InMemoryCommandContext extends CommandContext {
  readonly stdout = new Collected()
  readonly stderr = new Collected()
  readonly #open: OpenStore

  constructor(store: StrataStore, options: Omit<GlobalOptions, 'store'> = {}) {
    super({ ...options, store: 'in-process-store' })
    this.#open = { target: this.target, store, close: async () => undefined }
    ;(this as { output: Output }).output = new Output({
      json: options.json === true,
      colour: false,
      stdout: this.stdout,
      stderr: this.stderr,
    })
  }

  override store(): Promise<OpenStore> {
    return Promise.resolve(this.#open)
  }
}
