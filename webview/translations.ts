/**
 * Loads the translations the host put in the page (see protocol.ts) into @vscode/l10n. main.ts imports
 * this module first, so it runs before any other module builds a text; without a bundle (English, or
 * a page from the browser tests) every l10n.t call returns its English message.
 */
import * as l10n from '@vscode/l10n';
import { L10N_BUNDLE_ELEMENT_ID, isL10nBundle } from './protocol';

const data = document.getElementById(L10N_BUNDLE_ELEMENT_ID)?.dataset.bundle;
if (data) {
  try {
    const bundle: unknown = JSON.parse(data);
    if (isL10nBundle(bundle)) l10n.config({ contents: bundle });
  } catch {
    // A damaged bundle must not break the page: it shows English instead.
  }
}
