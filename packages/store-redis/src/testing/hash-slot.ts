/*
 * The Redis Cluster slot of a key (CRC16/XMODEM of the key's hash tag, modulo 16384), so that tests
 * on a standalone server can check that a thread's keys share one slot.
 */

function crc16(bytes: Uint8Array): number {
  let crc = 0
  for (const byte of bytes) {
    crc ^= byte << 8
    for (let bit = 0; bit < 8; bit++)
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff
  }
  return crc
}

/** The slot Redis Cluster assigns `key`: only the part inside the first non-empty `{…}` counts. */
export function hashSlot(key: string): number {
  const bytes = new TextEncoder().encode(key)
  const open = bytes.indexOf(0x7b)
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1)
    if (close > open + 1) return crc16(bytes.subarray(open + 1, close)) % 16384
  }
  return crc16(bytes) % 16384
}
