import type { VectorRecord } from '@strata-memory/core'
import { isPlainObject } from '@strata-memory/core/store-kit'
import { corruptLog } from './file-errors'

/** The vectors file's name inside the thread folder. */
export const VECTORS_FILE = 'vectors.json'

/** The format marker of the vectors file. */
const FORMAT = 'strata-vectors/1'

/**
 * The vectors file of a thread, `<thread folder>/vectors.json`: one JSON object
 * `{ "format": "strata-vectors/1", "records": [{ "id", "model", "dimensions", "float32le" }] }`, where
 * `float32le` is the vector's IEEE 754 single-precision values, little-endian, in base64 — so every bit
 * (-0, subnormals) round-trips on any platform, and the file stays readable with any JSON tool.
 */
export function encodeVectorFile(records: readonly VectorRecord[]): string {
  const encoded = records.map(({ id, model, vector }) => ({
    id,
    model,
    dimensions: vector.length,
    float32le: toLittleEndian(vector).toString('base64'),
  }))
  return `${JSON.stringify({ format: FORMAT, records: encoded })}\n`
}

/** Parses a vectors file; `STRATA_CORRUPT_LOG` naming it when it is not one. */
export function decodeVectorFile(text: string, path: string): VectorRecord[] {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw corruptLog(path, 1, 'is not valid JSON (a vectors file holds one JSON object)')
  }
  if (!isPlainObject(value) || value.format !== FORMAT || !Array.isArray(value.records)) {
    throw corruptLog(path, 1, `is not a vectors file of format ${FORMAT}`)
  }
  return value.records.map((record: unknown, index: number) => {
    const problem = `holds a bad vector record at records[${index}]`
    if (!isPlainObject(record)) throw corruptLog(path, 1, problem)
    const { id, model, dimensions, float32le } = record
    if (typeof id !== 'string' || typeof model !== 'string' || typeof float32le !== 'string') {
      throw corruptLog(path, 1, problem)
    }
    const bytes = Buffer.from(float32le, 'base64')
    if (bytes.length !== Number(dimensions) * 4) throw corruptLog(path, 1, `${problem} (its length)`)
    return { id, model, vector: fromLittleEndian(bytes) }
  })
}

function toLittleEndian(vector: Float32Array): Buffer {
  const bytes = Buffer.alloc(vector.length * 4)
  for (let index = 0; index < vector.length; index++) bytes.writeFloatLE(vector[index]!, index * 4)
  return bytes
}

function fromLittleEndian(bytes: Buffer): Float32Array {
  const vector = new Float32Array(bytes.length / 4)
  for (let index = 0; index < vector.length; index++) vector[index] = bytes.readFloatLE(index * 4)
  return vector
}
