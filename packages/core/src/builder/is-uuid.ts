/** 1 for the char codes of 0-9, a-f and A-F. */
const HEX = new Uint8Array(128);
for (const c of "0123456789abcdefABCDEF") HEX[c.charCodeAt(0)] = 1;

/**
 * 8-4-4-4-12 hexadecimal digits, either case: the text form every dialect stores. Char codes and a
 * table rather than a regex: the queue recipes check every id of every batch.
 */
export function isUuid(text: string): boolean {
  if (text.length !== 36) return false;
  if (text.charCodeAt(8) !== 45 || text.charCodeAt(13) !== 45 || text.charCodeAt(18) !== 45 || text.charCodeAt(23) !== 45) return false;
  for (let i = 0; i < 36; i++) {
    if (i === 8 || i === 13 || i === 18 || i === 23) continue;
    const c = text.charCodeAt(i);
    if (c >= 128 || HEX[c] !== 1) return false;
  }
  return true;
}
