import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as toolNames from '../../src/core/toolNames';

interface ManifestTool {
  name: string;
  toolReferenceName?: string;
}

const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as {
  contributes: { languageModelTools: ManifestTool[] };
};
const declared = manifest.contributes.languageModelTools;
// Every export counts, so a tool name added to the module without package.json (or the reverse) fails here.
const inModule = Object.values(toolNames).sort();

describe('tool names: src/core/toolNames.ts and package.json agree', () => {
  it('every export is a tool name, spelled once', () => {
    for (const name of inModule) assert.match(name, /^[a-z][a-z0-9_]*$/);
    assert.equal(new Set(inModule).size, inModule.length);
  });

  it('declares exactly the tools the module names', () => {
    assert.deepEqual(declared.map((tool) => tool.name).sort(), inModule);
  });

  it('references each tool (#name in chat) by the same name', () => {
    const references = declared.filter((tool) => tool.toolReferenceName !== undefined).map((tool) => tool.toolReferenceName);
    assert.deepEqual(references.sort(), inModule);
  });
});
