/**
 * Sizes as every place shows them: the inspector page's own functions (webview/sizes.ts, free of
 * vscode and the DOM), so the tree, the status bar, the session names and the page cannot drift
 * apart. Binary units, three significant figures at most, bytes grouped en-US, and each size named by
 * what it measures (the output the tool produced, the copy retained of it). They translate with
 * @vscode/l10n, which activation configures from VS Code's bundle.
 */
export { bytes as sizeText, bytesExact as sizeExact, outputSizes } from '../../webview/sizes';
