// The display language of the real-host run (run.mjs --locale <id>). VS Code for the web (code-server
// 4.139.1 checked) takes the language from --locale, but uses it only when the user-data folder's
// languagepacks.json names a language pack for it whose core translations file exists
// (resolveNLSConfiguration in server-main.js; otherwise it falls back to English, which is why
// --locale alone leaves vscode.env.language at `en`). The server then writes the workbench's
// nls.messages.js with that language, the page reports it, and the extension host starts with it:
// vscode.env.language, vscode.l10n and package.nls.<language>.json all follow.
//
// Offline there is no real language pack to install, so this writes a stub one: an empty core
// translation ({"contents":{}}), so the workbench's own texts stay English while every extension's
// l10n bundle and package.nls switch language. That is enough to test ours.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** VS Code's language ids are lower case (zh-cn, pt-br); `en` needs nothing. */
export function checkLocale(locale) {
  if (!/^[a-z]{2,3}(-[a-z0-9]{2,8})*$/.test(locale)) throw new Error(`--locale must be a VS Code language id such as zh-cn, got ${locale}`);
  return locale;
}

/** Writes the stub language pack for `locale` under `dir` and registers it in `userDataDir`'s languagepacks.json. */
export function writeStubLanguagePack(userDataDir, locale, dir) {
  mkdirSync(dir, { recursive: true });
  const translations = path.join(dir, 'main.i18n.json');
  writeFileSync(translations, JSON.stringify({ contents: {} }));
  mkdirSync(userDataDir, { recursive: true });
  const entry = {
    // Names the cache folder (clp/<hash>.<locale>) the server writes the merged messages to.
    hash: `stub-${locale}`,
    extensions: [{ extensionIdentifier: { id: `tool-output-recall-test.stub-language-pack-${locale}` }, version: '0.0.0' }],
    translations: { vscode: translations },
    label: locale,
  };
  writeFileSync(path.join(userDataDir, 'languagepacks.json'), JSON.stringify({ [locale]: entry }, null, 2));
}
