/** Number, size and time formatting for the inspector (en-US grouping, binary units; dates in the page's language). */

import { exactTime } from './times';

export { bytes, bytesExact, num, outputSizes } from './sizes';

/**
 * Sentences translated one by one, put together: a space after each, as English writes them, but
 * none after a full-width stop (。！？：), as Chinese writes them. Empty parts are left out.
 */
export const sentences = (...parts: (string | undefined)[]): string =>
  parts
    .filter((part): part is string => !!part)
    .reduce((text, part) => (text === '' ? part : /[。！？：）]$/.test(text) ? `${text}${part}` : `${text} ${part}`), '');

/** A time in its one exact form, in the page's language (the host sets <html lang> to VS Code's; a browser test page has its own). */
export const time = (epochMs: number): string => exactTime(epochMs, document.documentElement.lang || undefined);
