/**
 * Unicode full case folding (CaseFolding.txt, statuses C and F: the default, not the Turkic T):
 * the form in which two texts that differ only in case compare equal. `toLowerCase` is not it:
 * it keeps ligatures and sharp s (ﬁ ≠ fi, ß ≠ ss), and its final-sigma rule makes a word ending
 * in Σ lower-case to ς while the same word typed in lower case ends in σ.
 *
 * Lower, upper, lower again applies the full mappings (ẞ → ß → SS → ss, ﬁ → FI → fi,
 * ŉ → ʼN → ʼn), the remaining final sigmas become σ, and the one character whose round trip
 * crosses classes, dotless ı (I lower-cases to i, not ı), is kept out of it. Checked against
 * Perl's `fc` over every code point the runtime's Unicode tables share with it.
 */
const DOTLESS_I = 'ı';

const foldRun = (text: string): string => text.toLowerCase().toUpperCase().toLowerCase().replaceAll('ς', 'σ');

export function caseFold(text: string): string {
  return text.includes(DOTLESS_I) ? text.split(DOTLESS_I).map(foldRun).join(DOTLESS_I) : foldRun(text);
}
