import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { create as openFont } from 'fontkit';
import { showHiddenCharacters } from './visible-text';

// DejaVu Sans (free licence, in the dejavu-fonts-ttf package): Latin, Greek, Cyrillic, Hebrew,
// Arabic letters and many symbols, where PDF's built-in fonts know only Western European text.
const require = createRequire(import.meta.url);
const FONT_REGULAR = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
const FONT_BOLD = require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans-Bold.ttf');
let fonts: { regular: Buffer; bold: Buffer; drawable: Set<number> } | null = null;

export function loadFonts() {
  if (fonts) return fonts;
  const regular = readFileSync(FONT_REGULAR);
  return (fonts = { regular, bold: readFileSync(FONT_BOLD), drawable: new Set(openFont(regular).characterSet) });
}

const canDraw = (codePoint: number) => loadFonts().drawable.has(codePoint);

/**
 * Text as the PDF can show it, nothing silently lost: a character that is invisible or changes the
 * direction of the text around it is written as its code, `[U+202E]` (visible-text.ts); so is a
 * character the font has no glyph for (CJK, emoji, a tab: `[U+1F44D]`), so it stays in the page and
 * its text; more than three combining marks on one letter are counted rather than stacked (each
 * costs layout time); and a run of 70 characters without a space (longer than a SHA-256) gets a
 * zero-width break, so it wraps inside the margin instead of being split letter by letter (slow) or
 * running off the page.
 */
export function drawableText(text: string): string {
  const { drawable } = loadFonts();
  const marked = showHiddenCharacters(text.replace(/\r\n?/g, '\n'), canDraw).replace(
    /(\p{M}{3})(\p{M}+)/gu,
    (_all, kept: string, more: string) => `${kept}[+${[...more].length} marks]`,
  );
  let out = '';
  for (const char of marked) {
    const code = char.codePointAt(0)!;
    out += char === '\n' || drawable.has(code) ? char : `[U+${code.toString(16).toUpperCase().padStart(4, '0')}]`;
  }
  return out.replace(/[^\s\u200b]{70}(?=[^\s\u200b])/gu, '$&\u200b');
}
