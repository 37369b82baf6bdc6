import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as toolNames from '../../src/core/toolNames';
import { TOOL_NAMES, isToolName } from '../../src/core/toolNames';
import { TOOL_SPECS } from '../../src/core/tools/registry';

interface ManifestTool {
  name: string;
  toolReferenceName?: string;
}

const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as {
  contributes: { languageModelTools: ManifestTool[] };
};
const declared = manifest.contributes.languageModelTools;
// Every string export is a tool name, so a constant added without its place in TOOL_NAMES (or the reverse) fails here.
const constants = (Object.values(toolNames) as unknown[]).filter((value): value is string => typeof value === 'string').sort();

describe('tool names: src/core/toolNames.ts, the registry and package.json agree', () => {
  it('every name constant is a tool name, spelled once, and in TOOL_NAMES', () => {
    for (const name of constants) assert.match(name, /^[a-z][a-z0-9_]*$/);
    assert.equal(new Set(TOOL_NAMES).size, TOOL_NAMES.length);
    assert.deepEqual([...TOOL_NAMES].sort(), constants);
    assert.equal(isToolName('run_command'), true);
    assert.equal(isToolName('toString'), false);
  });

  it('declares exactly the tools the module names, in the same order', () => {
    assert.deepEqual(
      declared.map((tool) => tool.name),
      [...TOOL_NAMES],
    );
  });

  it('references each tool (#name in chat) by the same name', () => {
    const references = declared.filter((tool) => tool.toolReferenceName !== undefined).map((tool) => tool.toolReferenceName);
    assert.deepEqual(references, [...TOOL_NAMES]);
  });

  it('has a spec under each name, named the same', () => {
    for (const name of TOOL_NAMES) assert.equal(TOOL_SPECS[name].name, name);
    assert.deepEqual(Object.keys(TOOL_SPECS).sort(), [...TOOL_NAMES].sort());
  });
});
