import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as toolNames from '../../src/core/toolNames';
import { readdirSync } from 'node:fs';
import { TOOL_NAMES, TOOL_SPECS, isToolName, loadSpec, specModuleName } from '../../src/core/tools/registry';

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

  it('finds each spec in the module named after its tool, and every spec module is a declared tool', () => {
    const dir = path.resolve(__dirname, '../../src/core/tools');
    const specModules = readdirSync(dir)
      .filter((file) => /^declare module '\.\/registry'/m.test(readFileSync(path.join(dir, file), 'utf8')))
      .map((file) => file.replace(/\.ts$/, ''))
      .sort();
    assert.deepEqual(specModules, TOOL_NAMES.map(specModuleName).sort());
    assert.equal(specModuleName('read_tool_output'), 'readToolOutput');
  });

  it('stops the load with the file to write when package.json declares a tool that has no spec', () => {
    assert.throws(
      () => loadSpec('not_written_yet'),
      /^Error: package\.json declares the tool not_written_yet, but src\/core\/tools\/notWrittenYet\.ts exports no notWrittenYetSpec/,
    );
    assert.throws(
      () => loadSpec('registry'),
      /package\.json declares the tool registry, but src\/core\/tools\/registry\.ts exports no registrySpec named so\./,
    );
  });
});
