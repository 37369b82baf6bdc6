import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as toolNames from '../../src/core/toolNames';
import { TOOL_NAMES, TOOL_SPECS, isToolName } from '../../src/core/tools/registry';

interface ManifestTool {
  name: string;
  toolReferenceName?: string;
}

const manifest = JSON.parse(readFileSync(path.resolve(__dirname, '../../package.json'), 'utf8')) as {
  contributes: { languageModelTools: ManifestTool[] };
};
const declared = manifest.contributes.languageModelTools;
// The names other texts cite: each must be a tool's.
const constants = (Object.values(toolNames) as unknown[]).filter((value): value is string => typeof value === 'string').sort();

describe('tool names: the registry, src/core/toolNames.ts and package.json agree', () => {
  it('every tool name is spelled once, and every cited name constant is a tool', () => {
    for (const name of TOOL_NAMES) assert.match(name, /^[a-z][a-z0-9_]*$/);
    assert.equal(new Set(TOOL_NAMES).size, TOOL_NAMES.length);
    for (const name of constants) assert.ok(isToolName(name), `${name} (src/core/toolNames.ts) is not a tool of the registry`);
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
