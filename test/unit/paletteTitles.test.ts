// The Command Palette's titles never collide: typing one command's whole title finds that command and
// no other of ours (typing "New Session" once picked Fork Session, whose title held "New Empty Session").
// The palette matches a title by its prefix, by the typed words as the starts of its words in order
// (VS Code's matchesWords), or as a contiguous part; it matches the English title in every language.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '../..');
const readJson = (file: string): Record<string, unknown> =>
  JSON.parse(readFileSync(path.join(REPO, file), 'utf8')) as Record<string, unknown>;
const manifest = readJson('package.json') as { contributes: { commands: { command: string; title: string; category?: string }[] } };

const words = (text: string): string[] =>
  text
    .toLowerCase()
    .split(/[\s()（）,，:：…·]+/u)
    .filter(Boolean);

/** Whether typing `query` in the palette shows the command titled `title`. */
function matches(query: string, title: string): boolean {
  const q = query.toLowerCase();
  const t = title.toLowerCase();
  if (t.startsWith(q) || t.includes(q)) return true;
  // Each typed word starts a word of the title, in order, words skipped allowed.
  const targets = words(title);
  let at = 0;
  for (const word of words(query)) {
    while (at < targets.length && !targets[at].startsWith(word)) at++;
    if (at === targets.length) return false;
    at++;
  }
  return true;
}

for (const nls of ['package.nls.json', 'package.nls.zh-cn.json']) {
  describe(`Command Palette titles (${nls})`, () => {
    const texts = readJson(nls);
    const english = readJson('package.nls.json');
    const titleOf = (ref: string, from: Record<string, unknown>): string => {
      const text = from[ref.replace(/%/g, '')];
      return typeof text === 'string' ? text : ref;
    };
    // What the palette lists: "Category: Title".
    const shown = manifest.contributes.commands
      .filter((c) => !c.command.startsWith('_'))
      .map((c) => ({
        command: c.command,
        title: titleOf(c.title, texts),
        labels: [texts, english].map((from) => `${c.category ? `${titleOf(c.category, from)}: ` : ''}${titleOf(c.title, from)}`),
      }));

    it('typing a title finds only its command', () => {
      const collisions: string[] = [];
      for (const typed of shown) {
        for (const other of shown) {
          if (other !== typed && other.labels.some((label) => matches(typed.title, label))) {
            collisions.push(`"${typed.title}" (${typed.command}) also finds ${other.command}`);
          }
        }
      }
      assert.deepEqual(collisions, []);
    });
  });
}

describe('the palette match used above', () => {
  it('finds what VS Code finds: the old Fork Session title for "New Session"', () => {
    assert.ok(matches('New Session', 'Tool Output Recall: Fork Session (New Empty Session Linked to This One)'));
    assert.ok(!matches('New Session', 'Tool Output Recall: Fork Session (Empty, Linked to This One)'));
  });
});
