import type { Memory, Thread } from '@strata-memory/core'
import { type LoadedConfig, loadConfig } from '../config/load-config'
import { Output } from '../output/output'
import { memoryOf, type OpenStore, openStore, requireThread } from '../store/open-store'
import { resolveStoreTarget, type StoreTarget } from '../store/store-target'
import { CliError } from './cli-error'

/** The global options every command takes. */
export interface GlobalOptions {
  store?: string
  prefix?: string
  config?: string
  levels?: string
  /** `--timeout`: seconds one store call may take. */
  timeout?: string
  json?: boolean
  color?: boolean
}

/**
 * What a command works with: the output, the store target, and lazily the open store, the config and
 * the memory. `close()` releases what was opened.
 */
/** The app's options that change what a thread shows, which only its config tells the CLI. */
const UNKNOWN_WITHOUT_CONFIG = [
  'levels',
  'token budget',
  'summarizer',
  'content plugins',
  'system prompt',
  'tool definitions',
]

export class CommandContext {
  readonly output: Output
  readonly options: GlobalOptions
  readonly target: StoreTarget
  #open: Promise<OpenStore> | undefined
  #config: Promise<LoadedConfig> | undefined
  #memory: Promise<Memory<string>> | undefined
  readonly #timeoutMs: number | undefined

  constructor(options: GlobalOptions) {
    this.options = options
    this.output = new Output({
      json: options.json === true,
      ...(options.color === false ? { colour: false } : {}),
    })
    this.#timeoutMs = timeoutMsOf(options.timeout)
    this.target = resolveStoreTarget({
      ...(options.store !== undefined ? { store: options.store } : {}),
      ...(options.prefix !== undefined ? { prefix: options.prefix } : {}),
    })
  }

  /** The store, opened once. */
  store({ create = false }: { create?: boolean } = {}): Promise<OpenStore> {
    this.#open ??= openStore(this.target, { create, timeoutMs: this.#timeoutMs })
    return this.#open
  }

  /** The memory options, loaded once; says on stderr when the defaults are used. */
  config(): Promise<LoadedConfig> {
    this.#config ??= loadConfig({
      ...(this.options.config !== undefined ? { configPath: this.options.config } : {}),
      ...(this.options.levels !== undefined ? { levels: this.options.levels } : {}),
    }).then((loaded) => {
      if (loaded.path === undefined) {
        this.output.noteWithResult(
          `No strata.config.{ts,mts,mjs,js} here: using the default memory options${this.options.levels ? ` with levels ${loaded.config.levels?.join(', ')}` : ''}. ` +
            `Not known without the app's config: ${UNKNOWN_WITHOUT_CONFIG.filter((what) => what !== 'levels' || this.options.levels === undefined).join(', ')}; ` +
            "what is shown may differ from what the app sends (--config to load the app's).",
        )
      }
      return loaded
    })
    return this.#config
  }

  /** The memory over the store with the config's options. */
  memory(): Promise<Memory<string>> {
    this.#memory ??= (async () => memoryOf(await this.store(), (await this.config()).config))()
    return this.#memory
  }

  /** An existing thread, or a one-line error for an unknown or malformed id. */
  async thread(threadId: string): Promise<Thread<string>> {
    await requireThread(await this.store(), threadId)
    return (await this.memory()).thread(threadId)
  }

  async close(): Promise<void> {
    const open = await this.#open?.catch(() => undefined)
    await open?.close()
  }
}

/** `--timeout` in milliseconds (undefined: the store's own default), or a usage error. */
function timeoutMsOf(seconds: string | undefined): number | undefined {
  if (seconds === undefined) return undefined
  const value = Number(seconds)
  if (seconds.trim() === '' || !Number.isFinite(value) || value <= 0) {
    throw new CliError(`Bad --timeout '${seconds}': give a number of seconds greater than 0.`)
  }
  return value * 1000
}
