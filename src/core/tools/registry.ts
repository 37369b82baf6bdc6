/**
 * The one table of tools both front ends run from (the VS Code adapter in src/extension/tools and
 * the MCP server in src/mcp/tools.ts), and the one way to run them: `invokeTool` checks the input
 * against the manifest's schema, lets the spec validate what the schema cannot say, runs it, and
 * renders a failure as the text the model reads. A tool is its spec file plus its line in `SPECS`;
 * the name union and every table keyed by it follow from that list. To add a tool, see ARCHITECTURE.md.
 */
import { RecallError } from '../errors';
import { RUN_CODE_TOOL } from '../toolNames';
import { checkToolInput } from './inputCheck';
import { TOOL_DECLARATIONS, type ToolDeclaration } from './manifest';
import { toolErrorText, unknownToolText } from './parts';
import { readFilePageSpec } from './readFilePage';
import { readToolOutputSpec } from './readToolOutput';
import { runCodeSpec } from './runCode';
import { runCommandSpec } from './runCommand';
import { searchToolOutputSpec } from './searchToolOutput';
import type { NestedCall, ToolContext, ToolSpec } from './toolSpec';

/** Every tool, in manifest order (test/unit/toolNames.test.ts keeps this list and package.json equal). */
const SPECS = [readToolOutputSpec, searchToolOutputSpec, runCommandSpec, readFilePageSpec, runCodeSpec] as const;

type AnySpec = (typeof SPECS)[number];

/** A tool's name: the union of the specs' names, so a table keyed by it misses no tool without a compile error. */
export type ToolName = AnySpec['name'];

/** Every tool's name, in manifest order. */
export const TOOL_NAMES: readonly ToolName[] = SPECS.map((spec) => spec.name);

export function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(name);
}

/** Every tool's spec by name. */
export const TOOL_SPECS = Object.fromEntries(SPECS.map((spec) => [spec.name, spec])) as {
  readonly [S in AnySpec as S['name']]: S;
};

/** A tool's input type, from its spec. */
export type ToolInput<N extends ToolName> = Parameters<(typeof TOOL_SPECS)[N]['run']>[0];

/** The spec of `name`, typed loosely, for callers that hold an input they have not checked yet. */
export function toolSpec(name: ToolName): ToolSpec<unknown> {
  return TOOL_SPECS[name] as ToolSpec<unknown>;
}

const declarations = new Map(TOOL_DECLARATIONS.map((declaration) => [declaration.name, declaration]));

/** The manifest's declaration of a tool (name, display name, description, schema). */
export function toolDeclaration(name: ToolName): ToolDeclaration {
  const declaration = declarations.get(name);
  // test/unit/toolNames.test.ts keeps TOOL_NAMES and package.json equal; this is for a build that skipped it.
  if (!declaration) throw new Error(`${name} has a spec but no declaration in package.json (contributes.languageModelTools).`);
  return declaration;
}

export interface ToolRun {
  /** The text the model gets: the result, or `<tool> failed (<CODE>): <message>`. */
  text: string;
  isError: boolean;
}

/**
 * Runs a tool the way every caller does (a model's call in VS Code or over MCP, a program's
 * `tools.call`): the schema check, the spec's validation, the run. Never rejects: a failure is a
 * run with `isError` and the text the model reads.
 */
export async function invokeTool(name: string, input: unknown, context: ToolContext): Promise<ToolRun> {
  try {
    if (!isToolName(name)) throw new RecallError('NOT_FOUND', unknownToolText(name, TOOL_NAMES));
    const spec = toolSpec(name);
    checkToolInput(toolDeclaration(name).inputSchema, input);
    spec.validate?.(input);
    return { text: await spec.run(input, { ...context, callTool: context.callTool ?? nestedCall(context) }), isError: false };
  } catch (error) {
    return { text: toolErrorText(name, error), isError: true };
  }
}

/**
 * run_code's `tools.call` on this registry (the MCP server's; VS Code goes through vscode.lm so the
 * nested tool asks for its own confirmation, and lands in invokeTool all the same). A nested failure
 * rejects with the text the model would read, which the program can catch. The nested run gets the
 * setting's preview size: a client's limit is for what reaches the model, and the program reads this.
 */
export function nestedCall(context: ToolContext): NestedCall {
  return async (name, input, ended) => {
    if (!isToolName(name)) throw new Error(unknownToolText(name, nestedToolNames(TOOL_NAMES)));
    const run = await invokeTool(name, input, { ...context, previewBytes: undefined, signal: AbortSignal.any([context.signal, ended]) });
    if (run.isError) throw new Error(run.text);
    return run.text;
  };
}

/** The tools a program may call, out of `names` (a program cannot start another program). */
export function nestedToolNames(names: readonly string[]): string[] {
  return names.filter((name) => name !== RUN_CODE_TOOL);
}
