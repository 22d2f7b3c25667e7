/**
 * 8-4-4-4-12 hexadecimal digits, either case: the text form every dialect stores. A loop over char
 * codes, since queue recipes check every id of every batch and a regex costs several times more.
 */
export function isUuid(text: string): boolean {
  if (text.length !== 36) return false;
  for (let i = 0; i < 36; i++) {
    const c = text.charCodeAt(i);
    if (i === 8 || i === 13 || i === 18 || i === 23) {
      if (c !== 45) return false; // "-"
    } else if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70))) {
      return false; // not 0-9, a-f, A-F
    }
  }
  return true;
}
