/** Number, size and time formatting for the inspector (en-US grouping, binary units; dates in the page's language). */

export { bytes, bytesExact, num, outputSizes } from './sizes';

/**
 * Sentences translated one by one, put together: a space after each, as English writes them, but
 * none after a full-width stop (。！？：), as Chinese writes them. Empty parts are left out.
 */
export const sentences = (...parts: (string | undefined)[]): string =>
  parts
    .filter((part): part is string => !!part)
    .reduce((text, part) => (text === '' ? part : /[。！？：）]$/.test(text) ? `${text}${part}` : `${text} ${part}`), '');

export function time(epochMs: number): string {
  const date = new Date(epochMs);
  // The host sets <html lang> to VS Code's display language; a browser test page has its own.
  return date.toLocaleString(document.documentElement.lang || undefined, { dateStyle: 'medium', timeStyle: 'medium' });
}
