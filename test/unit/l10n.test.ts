// Localization: every string a person sees goes through vscode.l10n / @vscode/l10n (the bundle in
// l10n/) or a %key% of package.json (package.nls.json), and each has its Simplified Chinese text.
// The English bundle is generated from the sources by @vscode/l10n-dev (`npm run l10n`);
// test/system/l10nExport.test.ts regenerates it and fails when the committed one is out of date.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '../..');
const LANGUAGE = 'zh-cn';
const readJson = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(REPO, file), 'utf8')) as Record<string, unknown>;
const manifest = readJson('package.json') as { l10n?: string };

/** The `{0}` / `{name}` placeholders of a message, sorted: a translation must keep exactly these. */
const placeholders = (text: string): string[] => [...text.matchAll(/\{[^{}]+\}/g)].map((m) => m[0]).sort();

/** Every `%key%` string anywhere in the manifest, with where it is. */
function nlsReferences(value: unknown, where: string, found: Map<string, string>): Map<string, string> {
  if (typeof value === 'string') {
    const key = /^%([^%]+)%$/.exec(value)?.[1];
    if (key) found.set(key, where);
  } else if (Array.isArray(value)) {
    value.forEach((item, i) => nlsReferences(item, `${where}[${i}]`, found));
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) nlsReferences(v, where ? `${where}.${k}` : k, found);
  }
  return found;
}

/** Translations of `english` (a bundle or a package.nls): problems, one line each. */
function translationProblems(english: Record<string, unknown>, translated: Record<string, unknown>, file: string): string[] {
  const problems: string[] = [];
  for (const [key, text] of Object.entries(english)) {
    const zh = translated[key];
    if (typeof zh !== 'string' || zh.trim() === '') {
      problems.push(`${file} has no string for ${JSON.stringify(key)}`);
      continue;
    }
    const want = placeholders(String(text));
    if (JSON.stringify(placeholders(zh)) !== JSON.stringify(want)) {
      problems.push(`${file}: ${JSON.stringify(key)} must keep the placeholders ${want.join(' ') || '(none)'}, has ${JSON.stringify(zh)}`);
    }
  }
  for (const key of Object.keys(translated)) if (!(key in english)) problems.push(`${file} has a stale key ${JSON.stringify(key)}`);
  return problems;
}

/** TypeScript sources under src/ and webview/ (what `npm run l10n` reads). */
function sources(): string[] {
  return ['src', 'webview'].flatMap((dir) =>
    readdirSync(path.join(REPO, dir), { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts'))
      .map((f) => path.join(dir, f)),
  );
}

describe('localization (English and Simplified Chinese)', () => {
  it('package.json names its bundle folder', () => {
    assert.equal(manifest.l10n, './l10n');
  });

  it(`every string of the bundle has its ${LANGUAGE} translation with the same placeholders, and no translation is stale`, () => {
    const english = readJson('l10n/bundle.l10n.json');
    assert.ok(Object.keys(english).length > 0, 'the English bundle is empty');
    assert.deepEqual(translationProblems(english, readJson(`l10n/bundle.l10n.${LANGUAGE}.json`), `bundle.l10n.${LANGUAGE}.json`), []);
  });

  it(`every %key% of package.json is in package.nls.json and package.nls.${LANGUAGE}.json, and neither has unused keys`, () => {
    const used = nlsReferences(manifest, '', new Map());
    assert.ok(used.size > 0, 'package.json has no %key% strings');
    const english = readJson('package.nls.json');
    const missing = [...used].filter(([key]) => typeof english[key] !== 'string').map(([key, where]) => `${key} (${where})`);
    assert.deepEqual(missing, [], 'keys missing from package.nls.json');
    const unused = Object.keys(english).filter((key) => !used.has(key));
    assert.deepEqual(unused, [], 'package.nls.json keys no %key% refers to');
    assert.deepEqual(translationProblems(english, readJson(`package.nls.${LANGUAGE}.json`), `package.nls.${LANGUAGE}.json`), []);
  });

  it('the manifest strings a person reads are all %key% references (titles, names, descriptions)', () => {
    // Tool modelDescription and input schema descriptions are for the model and stay English.
    const personFacing =
      /\.(title|category|name|contextualTitle|contents|markdownDescription|description|displayName|userDescription|fullName)$/;
    const modelFacing = /(modelDescription|inputSchema)/;
    const literal: string[] = [];
    const walk = (value: unknown, where: string): void => {
      if (typeof value === 'string') {
        if (personFacing.test(where) && !modelFacing.test(where) && !/^%[^%]+%$/.test(value)) literal.push(`${where}: ${value}`);
      } else if (typeof value === 'object' && value !== null) {
        for (const [k, v] of Object.entries(value)) walk(v, `${where}.${k}`);
      }
    };
    const { contributes, displayName, description, capabilities } = manifest as Record<string, unknown>;
    walk({ contributes, displayName, description, capabilities }, '');
    // Identifiers, not texts: a tool's name (the model calls it) and the chat participant's (typed after @).
    const identifier = /^\.contributes\.(languageModelTools|chatParticipants)\.\d+\.name:/;
    assert.deepEqual(
      literal.filter((entry) => !identifier.test(entry)),
      [],
    );
  });

  it(`every ${LANGUAGE} text puts a space between Chinese and a Latin word or a number (bundle and package.nls)`, () => {
    const cramped: string[] = [];
    for (const file of [`l10n/bundle.l10n.${LANGUAGE}.json`, `package.nls.${LANGUAGE}.json`]) {
      for (const [key, text] of Object.entries(readJson(file))) {
        const m = /[\u4e00-\u9fff][A-Za-z0-9]|[A-Za-z0-9][\u4e00-\u9fff]/u.exec(String(text));
        if (m) cramped.push(`${file}: ${JSON.stringify(key)} has "${m[0]}"`);
      }
    }
    assert.deepEqual(cramped, []);
  });

  it('every l10n.t call takes a literal message (a template literal with ${} cannot be looked up in a bundle)', () => {
    const bad: string[] = [];
    for (const file of sources()) {
      const text = readFileSync(path.join(REPO, file), 'utf8');
      for (const m of text.matchAll(/\bl10n\.t\(\s*`[^`]*\$\{/g)) bad.push(`${file}:${text.slice(0, m.index).split('\n').length}`);
    }
    assert.deepEqual(bad, []);
  });
});
