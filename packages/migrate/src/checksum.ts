import { createHash } from "node:crypto";

/**
 * The checksum of a migration file: SHA-256 of its text with line endings normalised, so a checkout
 * that turns LF into CRLF does not look like an edit, and any other change does.
 */
export function migrationChecksum(text: string): string {
  return createHash("sha256").update(text.replace(/\r\n?/g, "\n"), "utf8").digest("hex");
}
