import fc from "fast-check";
import { hostileStrings } from "tempest-db-js/testing";

/** Pieces of text that break naive quoting, placeholders, comments, LIKE patterns, or Unicode handling. */
export const NASTY = hostileStrings;

/** Well-formed strings made for trouble. NUL is kept only when the dialect stores it. */
export function hostileString(options: { nul: boolean; maxLength?: number }): fc.Arbitrary<string> {
  const maxLength = options.maxLength ?? 40;
  const pieces = fc.oneof(fc.constantFrom(...NASTY), fc.string({ unit: "binary", minLength: 1, maxLength: 1 }));
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.array(pieces, { maxLength: 10 }).map((parts) => parts.join("")) },
      { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength }) },
      { weight: 1, arbitrary: fc.constantFrom(...NASTY, "") },
    )
    .map((s) => (options.nul ? s : s.replaceAll("\0", "")));
}

/**
 * A value and a decoy the database must tell apart: a case, padding, normalization or prefix variant
 * (what a case-insensitive, PAD SPACE or accent-folding collation would confuse), or an unrelated
 * hostile string.
 */
export function valueAndDecoy(nul: boolean): fc.Arbitrary<[string, string]> {
  const variants: ((s: string, other: string) => string)[] = [
    (s) => s.toUpperCase(),
    (s) => s.toLowerCase(),
    (s) => `${s} `,
    (s) => `${s}\t`,
    (s) => ` ${s}`,
    (s) => s.normalize("NFD"),
    (s) => s.normalize("NFC"),
    (s) => [...s].slice(0, -1).join(""),
    (s) => `${s}%`,
    (s) => `${s}_`,
    (s) => `${s}\\`,
    (_, other) => other,
  ];
  return fc
    .tuple(hostileString({ nul }), hostileString({ nul }), fc.constantFrom(...variants))
    .map(([s, other, variant]): [string, string] => [s, variant(s, other)])
    .filter(([s, decoy]) => s !== decoy);
}

const LONE = ["\ud800", "\udbff", "\udc00", "\udfff", "😀".slice(0, 1), "😀".slice(1)];

/** A string with one unpaired UTF-16 surrogate somewhere. */
export const loneSurrogateString: fc.Arbitrary<string> = fc
  .tuple(hostileString({ nul: false }), fc.constantFrom(...LONE), hostileString({ nul: false }))
  .map(([a, lone, b]) => a + lone + b);

/** A string with at least one NUL. */
export const nulString: fc.Arbitrary<string> = fc
  .tuple(hostileString({ nul: false }), hostileString({ nul: true }))
  .map(([a, b]) => `${a}\0${b}`);

/** Identifier material: hostile text without NUL (always refused), at most `maxLength` characters. */
export function identifierPart(maxLength: number): fc.Arbitrary<string> {
  return hostileString({ nul: false, maxLength }).map((s) => [...s].slice(0, maxLength).join(""));
}
