// Byte-count settings read as a person reads sizes (issue 29, item 8): each says its default, and its
// bounds, both as the number the setting takes and in KiB/MiB, in English and Simplified Chinese. The
// settings stay integers of bytes (what existing settings.json files and the MCP server's options hold).
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { sizeText } from '../../src/extension/sizes';

const root = path.join(__dirname, '..', '..');
const read = (file: string) => JSON.parse(fs.readFileSync(path.join(root, file), 'utf8'));

interface Setting {
  type: string;
  default: number;
  minimum?: number;
  maximum?: number;
  markdownDescription: string;
}

/** A size as the tree and the inspector write it, or without a trailing ".0" (8 MiB, not 8.0 MiB) in prose. */
const sizeIn = (text: string, bytes: number) => [sizeText(bytes), sizeText(bytes).replace(/\.0 /, ' ')].some((size) => text.includes(size));

describe('byte-count settings', () => {
  const properties = read('package.json').contributes.configuration.properties as Record<string, Setting>;
  const bytesSettings = Object.entries(properties).filter(([key]) => key.endsWith('Bytes'));

  it('are byte counts (integers), as settings.json files and the MCP server hold them', () => {
    assert.ok(bytesSettings.length >= 8, bytesSettings.map(([key]) => key).join(', '));
    for (const [key, setting] of bytesSettings) assert.equal(setting.type, 'integer', key);
  });

  for (const nls of ['package.nls.json', 'package.nls.zh-cn.json']) {
    it(`${nls}: each says its default and its bounds in bytes and in KiB/MiB`, () => {
      const texts = read(nls) as Record<string, string>;
      for (const [key, setting] of bytesSettings) {
        const text = texts[setting.markdownDescription.slice(1, -1)];
        assert.ok(text, `${key}: ${setting.markdownDescription}`);
        assert.ok(text.includes(`\`${setting.default}\``), `${key} names its default ${setting.default}: ${text}`);
        if (setting.default > 0) assert.ok(sizeIn(text, setting.default) && text.includes('**'), `${key}: default in KiB/MiB: ${text}`);
        for (const bound of [setting.minimum, setting.maximum]) {
          if (!bound || bound === setting.default) continue;
          assert.ok(text.includes(`\`${bound}\``) && sizeIn(text, bound), `${key}: bound ${bound} as ${sizeText(bound)}: ${text}`);
        }
      }
    });
  }
});
