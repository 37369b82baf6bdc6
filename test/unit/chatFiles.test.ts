// The prompt files the extension contributes to VS Code's chat (package.json chatAgents,
// chatInstructions, chatSkills): the files exist and ship, and every tool they name is one VS Code
// resolves. VS Code 1.139.1 names an extension's tool in an agent's `tools:` header and in `#tool:`
// references by its full reference name `<extension id, lower case>/<toolReferenceName>`; its prompt
// validator accepts nothing else in the header (a short name still enables the tool, flagged as renamed).
// test/integration/chatContributions.test.ts proves the same names against the real host.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { READ_FILE_PAGE_TOOL, READ_TOOL_OUTPUT_TOOL, RUN_COMMAND_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../../src/core/toolNames';
import { TOOL_NAMES } from '../../src/core/tools/registry';

const REPO = path.resolve(__dirname, '../..');

interface ManifestTool {
  name: string;
  toolReferenceName: string;
  inputSchema: { properties: Record<string, unknown>; required?: string[] };
}
interface PromptFileEntry {
  path: string;
  name?: string;
  description?: string;
  when?: string;
}
const manifest = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as {
  publisher: string;
  name: string;
  contributes: Record<string, unknown> & { languageModelTools: ManifestTool[] };
};
const EXTENSION_ID = `${manifest.publisher}.${manifest.name}`.toLowerCase();
const OUR_TOOLS = new Map(manifest.contributes.languageModelTools.map((tool) => [`${EXTENSION_ID}/${tool.toolReferenceName}`, tool]));

/**
 * VS Code 1.139.1's built-in tool sets: `execute`, `read`, `agent`, `vscode` from the workbench and
 * `edit`, `search`, `web` (and `read`, `execute`, `vscode` again) from its built-in Copilot Chat, plus
 * `todo`. An agent's header may name these without a prefix.
 */
const BUILT_IN_TOOL_SETS = new Set(['execute', 'read', 'edit', 'search', 'agent', 'web', 'todo', 'vscode']);
/** What the Recall custom agent runs commands with instead. */
const TERMINAL = /^(execute|runInTerminal|run_in_terminal|terminal)$|\/(runInTerminal|run_in_terminal)$/;

/**
 * A `#tool:` reference as VS Code 1.139.1 reads it (its prompt parser's pattern): the name runs over
 * dots too, so a sentence ending right after a reference names a tool "run_command." that does not exist.
 */
const TOOL_REFERENCE = /#tool:([\w\-./]+)/g;

/** One contributed file: front matter (a flat YAML subset: `key: value` and `key:` with `- item` lines) and body. */
interface PromptFile {
  file: string;
  header: Record<string, string | string[]>;
  body: string;
}

function parsePromptFile(file: string, text: string): PromptFile {
  const match = /^---\n([\s\S]*?)\n---\n([\s\S]*)$/.exec(text);
  if (!match) throw new Error(`${file}: no front matter between --- lines at the top`);
  const header: Record<string, string | string[]> = {};
  let list: string[] | undefined;
  for (const line of match[1].split('\n')) {
    const item = /^ {2}- (.+)$/.exec(line);
    const pair = /^([a-zA-Z-]+):(?: (.*))?$/.exec(line);
    if (item && list) list.push(unquote(item[1]));
    else if (pair && pair[2] === undefined) header[pair[1]] = list = [];
    else if (pair && !pair[2].startsWith('[')) {
      header[pair[1]] = unquote(pair[2]);
      list = undefined;
    } else throw new Error(`${file}: front matter line outside the subset this test reads: ${JSON.stringify(line)}`);
  }
  return { file, header, body: match[2] };
}

const unquote = (value: string): string => value.replace(/^'(.*)'$|^"(.*)"$/, '$1$2');

function entries(point: string): PromptFileEntry[] {
  const list = manifest.contributes[point];
  assert.ok(Array.isArray(list), `package.json contributes.${point} is missing`);
  return list as PromptFileEntry[];
}

function load(entry: PromptFileEntry): PromptFile {
  return parsePromptFile(entry.path, readFileSync(path.join(REPO, entry.path), 'utf8'));
}

/** Tool names that VS Code would not resolve: in the header's `tools:` and in `#tool:` references. */
function unknownTools(prompt: PromptFile): string[] {
  const header = prompt.header.tools;
  const named = [...(Array.isArray(header) ? header : []), ...[...prompt.body.matchAll(TOOL_REFERENCE)].map((m) => m[1])];
  return named.filter((name) => !OUR_TOOLS.has(name) && !BUILT_IN_TOOL_SETS.has(name));
}

/** `#tool:` references an agent body makes to tools its header does not enable (VS Code warns about each). */
function referencedButNotEnabled(prompt: PromptFile): string[] {
  const header = prompt.header.tools;
  if (!Array.isArray(header)) return [];
  return [...prompt.body.matchAll(TOOL_REFERENCE)].map((m) => m[1]).filter((name) => !header.includes(name));
}

/**
 * Calls the texts show as `tool { key, key: value }` (several shapes joined by "or"): every key must
 * be a property of the tool's input schema, and every required property must be there.
 */
function badCallShapes(prompt: PromptFile): string[] {
  const names = TOOL_NAMES.join('|');
  const call = new RegExp(`\\b(${names})\`?\\s*\`?(\\{[^}]*\\}(?:\`?\\s+or\\s+\`?\\{[^}]*\\})*)`, 'g');
  const problems: string[] = [];
  for (const [, tool, shapes] of prompt.body.matchAll(call)) {
    const schema = OUR_TOOLS.get(`${EXTENSION_ID}/${tool}`)!.inputSchema;
    for (const [shape] of shapes.matchAll(/\{[^}]*\}/g)) {
      const keys = shape
        .slice(1, -1)
        .split(',')
        .map((part) => part.split(':')[0].trim());
      for (const key of keys) if (!(key in schema.properties)) problems.push(`${tool} ${shape}: ${tool} has no input "${key}"`);
      for (const key of schema.required ?? []) if (!keys.includes(key)) problems.push(`${tool} ${shape}: lacks the required "${key}"`);
    }
  }
  return problems;
}

describe('chat prompt files: the contributed agent, instructions and skill', () => {
  const [agentEntry] = entries('chatAgents');
  const [instructionsEntry] = entries('chatInstructions');
  const [skillEntry] = entries('chatSkills');
  const all = [agentEntry, instructionsEntry, skillEntry];

  it('package.json contributes exactly one of each, as files inside chat/ that VS Code recognises', () => {
    for (const point of ['chatAgents', 'chatInstructions', 'chatSkills']) assert.equal(entries(point).length, 1, point);
    assert.match(agentEntry.path, /^\.\/chat\/[^/]+\.agent\.md$/);
    assert.match(instructionsEntry.path, /^\.\/chat\/[^/]+\.instructions\.md$/);
    assert.match(skillEntry.path, /^\.\/chat\/skills\/[a-z0-9-]+\/SKILL\.md$/);
    for (const entry of all) {
      assert.ok(existsSync(path.join(REPO, entry.path)), `${entry.path} does not exist`);
      // Deprecated in 1.139: VS Code takes name and description from the file's front matter.
      assert.deepEqual(Object.keys(entry), ['path'], `${entry.path}: give name and description in the file`);
    }
  });

  it('the VSIX carries chat/ (.vscodeignore is an allowlist)', () => {
    const rules = readFileSync(path.join(REPO, '.vscodeignore'), 'utf8').split('\n');
    assert.ok(rules.includes('!chat/**'), '.vscodeignore lacks !chat/**');
  });

  it('the agent is "Recall": read, edit and search plus the evidence chain of our tools, run_command instead of the terminal', () => {
    const agent = load(agentEntry);
    assert.equal(agent.header.name, 'Recall');
    assert.ok(typeof agent.header.description === 'string' && agent.header.description.length > 20);
    const tools = agent.header.tools;
    assert.ok(Array.isArray(tools), 'the agent has no tools: list');
    assert.deepEqual(
      tools.filter((t) => BUILT_IN_TOOL_SETS.has(t)),
      ['read', 'edit', 'search'],
    );
    // Every tool of ours it names exists; the evidence chain is there. A new tool joins the agent when
    // its body says when to use it (the body's #tool: references must be in this list, checked above).
    const ours = tools.filter((t) => typeof t === 'string' && t.startsWith(`${EXTENSION_ID}/`));
    for (const tool of ours) assert.ok(OUR_TOOLS.has(tool), `${tool} is not a tool of package.json`);
    for (const name of [RUN_COMMAND_TOOL, SEARCH_TOOL_OUTPUT_TOOL, READ_TOOL_OUTPUT_TOOL, READ_FILE_PAGE_TOOL])
      assert.ok(ours.includes(`${EXTENSION_ID}/${name}`), `the agent lacks ${name}`);
    assert.deepEqual(
      tools.filter((t) => TERMINAL.test(t)),
      [],
    );
    assert.match(agent.body, /never re-run a command/i);
    assert.match(agent.body, /preview is not the output/i);
  });

  it('names only tools VS Code resolves, in every header and #tool: reference', () => {
    for (const entry of all) {
      const prompt = load(entry);
      assert.deepEqual(unknownTools(prompt), [], prompt.file);
      assert.deepEqual(referencedButNotEnabled(prompt), [], prompt.file);
    }
  });

  it('shows every call with inputs the tool really takes', () => {
    const shown = all.map(load).map((prompt) => [prompt.file, badCallShapes(prompt)] as const);
    assert.deepEqual(
      shown.filter(([, problems]) => problems.length),
      [],
    );
    // The check looks at something: the recipes show calls of all three reading tools.
    const skill = load(skillEntry).body;
    for (const call of ['search_tool_output `{', 'read_tool_output `{', 'read_file_page `{']) assert.ok(skill.includes(call), call);
  });

  it('catches a tool that does not exist, a short name, a reference ending in a dot or not enabled in the header, and a wrong input', () => {
    const agent = load(agentEntry);
    const doctored: PromptFile = {
      ...agent,
      header: { ...agent.header, tools: [...(agent.header.tools as string[]), `${EXTENSION_ID}/no_such_tool`, 'read_tool_output'] },
      body: `${agent.body}\nUse #tool:${EXTENSION_ID}/no_such_tool, #tool:web and #tool:${EXTENSION_ID}/run_code. Then read_tool_output \`{ outputId, offst }\` or \`{ offset }\`.\n`,
    };
    assert.deepEqual(unknownTools(doctored), [
      `${EXTENSION_ID}/no_such_tool`,
      'read_tool_output',
      `${EXTENSION_ID}/no_such_tool`,
      `${EXTENSION_ID}/run_code.`,
    ]);
    assert.deepEqual(referencedButNotEnabled(doctored), ['web', `${EXTENSION_ID}/run_code.`]);
    assert.deepEqual(badCallShapes(doctored), [
      'read_tool_output { outputId, offst }: read_tool_output has no input "offst"',
      'read_tool_output { offset }: lacks the required "outputId"',
    ]);
  });

  it('the instructions apply to every chat and say what a cut result is', () => {
    const instructions = load(instructionsEntry);
    assert.equal(instructions.header.applyTo, '**');
    assert.ok(typeof instructions.header.description === 'string');
    for (const word of ['truncated', 'compacted', 'file', 'absence', 're-run']) assert.match(instructions.body, new RegExp(word, 'i'));
  });

  it('the skill is named after its folder and holds the five recipes', () => {
    const skill = load(skillEntry);
    // VS Code replaces a name that differs from the folder with the folder's name (64 characters at most).
    assert.equal(skill.header.name, path.basename(path.dirname(skillEntry.path)));
    assert.match(skill.header.name, /^[a-z0-9-]{1,64}$/);
    const description = skill.header.description as string;
    assert.ok(description.length > 40 && description.length <= 1024, `description of ${description.length} characters`);
    const headings = [...skill.body.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    for (const recipe of [/tail/, /error in the middle/, /JSON key/, /long line/, /absen/i])
      assert.ok(
        headings.some((h) => recipe.test(h)),
        `no recipe heading matches ${recipe}: ${headings.join(' | ')}`,
      );
  });

  it('are English and short: printable ASCII, instructions under 2 KB (they go into every chat)', () => {
    const limits = new Map([
      [agentEntry, 4096],
      [instructionsEntry, 2048],
      [skillEntry, 6144],
    ]);
    for (const [entry, limit] of limits) {
      const text = readFileSync(path.join(REPO, entry.path), 'utf8');
      assert.match(text, /^[\t\n\x20-\x7e]*$/, `${entry.path} has characters outside printable ASCII`);
      assert.ok(Buffer.byteLength(text) <= limit, `${entry.path}: ${Buffer.byteLength(text)} bytes, more than ${limit}`);
    }
  });

  it('the front matter reader refuses what it cannot read', () => {
    assert.throws(() => parsePromptFile('x.agent.md', 'no front matter'), /x\.agent\.md: no front matter/);
    assert.throws(() => parsePromptFile('x.agent.md', '---\ntools: [a, b]\n---\nbody'), /outside the subset.*tools: \[a, b\]/);
    assert.throws(() => parsePromptFile('x.agent.md', '---\nnested:\n    deep: 1\n---\nbody'), /outside the subset.*deep/);
    assert.deepEqual(parsePromptFile('x.md', "---\nname: 'A'\nlist:\n  - b\n---\nbody\n"), {
      file: 'x.md',
      header: { name: 'A', list: ['b'] },
      body: 'body\n',
    });
  });
});
