import type { Stats } from 'node:fs'

/** Which version of a file a cache holds: a file that changed has a new size or mtime. */
export interface FileVersion {
  dev: number
  ino: number
  size: number
  mtimeMs: number
}

export const versionOf = (stats: Stats): FileVersion => ({
  dev: stats.dev,
  ino: stats.ino,
  size: stats.size,
  mtimeMs: stats.mtimeMs,
})

/** The same file (not replaced by a rename), whatever was appended to it. */
export const sameFile = (left: FileVersion | undefined, right: FileVersion): boolean =>
  left !== undefined && left.dev === right.dev && left.ino === right.ino

/** The same file, unchanged. */
export const sameVersion = (left: FileVersion | undefined, right: FileVersion): boolean =>
  sameFile(left, right) && left!.size === right.size && left!.mtimeMs === right.mtimeMs
