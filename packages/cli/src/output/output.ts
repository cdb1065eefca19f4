import pc from 'picocolors'

/** Colour functions; plain identity functions when colours are off. */
export type Colours = ReturnType<typeof pc.createColors>

/**
 * Colours when stdout is a terminal and NO_COLOR is not set, or when FORCE_COLOR asks (not `0`);
 * `--no-color` turns them off whatever the rest says.
 * Unlike picocolors' own default, `CI` alone does not turn them on: a CI log or a pipe that is not a
 * terminal gets plain text, which scripts and `grep` can read.
 */
export function coloursWanted(stdout: NodeJS.WritableStream, env: NodeJS.ProcessEnv = process.env): boolean {
  const force = env.FORCE_COLOR
  if (force !== undefined && force !== '') return force !== '0' && force !== 'false'
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  return (stdout as { isTTY?: boolean }).isTTY === true && env.TERM !== 'dumb'
}

/**
 * Where a command writes: JSON for scripts (`--json`: one JSON document on stdout), or readable
 * text with colours when the terminal has them. Notes go to stderr, so stdout stays parseable.
 */
export class Output {
  readonly json: boolean
  readonly colours: Colours
  readonly #stdout: NodeJS.WritableStream
  readonly #stderr: NodeJS.WritableStream
  /** Notes shown only once the command has something to print, so an error stays one line. */
  #pending: string[] = []

  constructor({
    json = false,
    stdout = process.stdout,
    colour = coloursWanted(stdout),
    stderr = process.stderr,
  }: {
    json?: boolean
    colour?: boolean
    stdout?: NodeJS.WritableStream
    stderr?: NodeJS.WritableStream
  } = {}) {
    this.json = json
    this.colours = pc.createColors(colour && !json)
    this.#stdout = stdout
    this.#stderr = stderr
  }

  /** Writes `data` as JSON with `--json`, else the text `text()` renders. */
  result(data: unknown, text: () => string): void {
    this.write(this.json ? `${JSON.stringify(data, null, 2)}\n` : ensureNewline(text()))
  }

  /** Writes raw text to stdout. */
  write(text: string | Uint8Array): boolean {
    if (this.#pending.length > 0) {
      for (const note of this.#pending) this.note(note)
      this.#pending = []
    }
    return this.#stdout.write(text)
  }

  /** Waits until stdout has taken what was written (large exports). */
  async drain(): Promise<void> {
    await new Promise<void>((resolve) => this.#stdout.write('', () => resolve()))
  }

  /** A note shown with the command's output, not before an error. */
  noteWithResult(text: string): void {
    this.#pending.push(text)
  }

  /** A note for people on stderr (never with `--json`, which keeps stderr for errors). */
  note(text: string): void {
    if (!this.json) this.#stderr.write(`${this.colours.dim(text)}\n`)
  }
}

function ensureNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`
}
