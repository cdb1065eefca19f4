/** Renders rows as a table with padded columns; numbers are right-aligned. */
export function table(header: readonly string[], rows: readonly (readonly (string | number)[])[]): string {
  const cells = rows.map((row) => row.map((cell) => String(cell)))
  const widths = header.map((title, column) =>
    Math.max(title.length, ...cells.map((row) => (row[column] ?? '').length)),
  )
  const numeric = header.map(
    (_title, column) => rows.length > 0 && rows.every((row) => typeof row[column] === 'number'),
  )
  const line = (row: readonly string[]) =>
    row
      .map((cell, column) => {
        const width = widths[column] ?? 0
        return numeric[column] ? cell.padStart(width) : cell.padEnd(width)
      })
      .join('  ')
      .trimEnd()
  return [line(header), line(widths.map((width) => '─'.repeat(width))), ...cells.map(line)].join('\n')
}
