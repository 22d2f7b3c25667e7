import { randomBytes } from "node:crypto";

/**
 * A version 7 UUID (RFC 9562): the first 48 bits are the Unix time in milliseconds, the rest random.
 * Ids made one after another sort in the order they were made (to the millisecond), so a B-tree on
 * them grows at its right edge and the pages of old, deleted ids empty out and are reused, where
 * random (version 4) ids leave every leaf page partly full.
 */
export function timeOrderedUuid(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x70;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
