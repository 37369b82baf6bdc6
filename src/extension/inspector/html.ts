/**
 * The inspector's HTML shell. vscode-free so the browser tests load the exact same document (same
 * CSP, same nonce rule) as the panel does.
 *
 * The CSP allows nothing by default: one script (by nonce), the bundle's stylesheet, and nothing
 * else — no images, fonts, frames, connections or inline handlers — so text from a command's output
 * could not load or run anything even if it ever reached the DOM as markup (it never does: the
 * webview renders output with textContent only).
 */
import { randomBytes } from 'node:crypto';
import * as l10n from '@vscode/l10n';
import { L10N_BUNDLE_ELEMENT_ID, type L10nBundle } from '../../../webview/protocol';

export interface InspectorHtmlOptions {
  /** `webview.cspSource`: the origin resources are served from. */
  cspSource: string;
  scriptUri: string;
  styleUri: string;
  /** A fresh nonce per render; tests pass their own. */
  nonce?: string;
  title?: string;
  /**
   * A page with only this text and no script, for a view with nothing to show yet (the side view
   * before an output is selected). The page is replaced by the inspector once there is one.
   */
  placeholder?: string;
  /** 'view' for a webview view: the page then shows the background of where the view is. */
  surface?: 'panel' | 'view';
  /** The display language (vscode.env.language, e.g. `zh-cn`); `en` when absent. */
  language?: string;
  /** The translations the page shows (vscode.l10n.bundle); absent in English. */
  bundle?: L10nBundle;
}

export const newNonce = (): string => randomBytes(18).toString('base64');

const escapeAttribute = (value: string): string =>
  value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function inspectorHtml(options: InspectorHtmlOptions): string {
  const nonce = options.nonce ?? newNonce();
  const csp = [
    "default-src 'none'",
    `style-src ${options.cspSource}`,
    `script-src 'nonce-${nonce}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const body =
    options.placeholder !== undefined
      ? `<div class="app"><p class="muted">${escapeAttribute(options.placeholder)}</p></div>`
      : `<div id="app" class="app" aria-busy="true"><p class="loading">${escapeAttribute(l10n.t('Loading output…'))}</p></div>
<script nonce="${escapeAttribute(nonce)}" src="${escapeAttribute(options.scriptUri)}"></script>`;
  // Data, not script: the CSP has nothing to allow, and escaping keeps the JSON inside the attribute.
  const bundle =
    options.bundle && options.placeholder === undefined
      ? `\n<meta id="${L10N_BUNDLE_ELEMENT_ID}" data-bundle="${escapeAttribute(JSON.stringify(options.bundle))}">`
      : '';
  return `<!DOCTYPE html>
<html lang="${escapeAttribute(options.language ?? 'en')}"${options.surface === 'view' ? ' data-surface="view"' : ''}>
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttribute(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">${bundle}
<link rel="stylesheet" href="${escapeAttribute(options.styleUri)}">
<title>${escapeAttribute(options.title ?? l10n.t('Tool Output Inspector'))}</title>
</head>
<body>
${body}
</body>
</html>
`;
}
