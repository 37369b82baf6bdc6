/**
 * The one table of tools both front ends run from (the VS Code adapter in src/extension/tools and
 * the MCP server in src/mcp/tools.ts), and the one way to run them: `invokeTool` checks the input
 * against the manifest's schema, lets the spec validate what the schema cannot say, runs it, and
 * renders a failure as the text the model reads. A tool is its manifest entry (package.json) and its
 * spec file: `TOOL_NAMES` follows the manifest, each spec is loaded from the module named after its
 * tool, and the `ToolName` union is what the spec files declare. To add a tool, see docs/changing.md.
 */
import { RecallError } from '../errors';
import { RUN_CODE_TOOL } from '../toolNames';
import { checkToolInput } from './inputCheck';
import { TOOL_DECLARATIONS, type ToolDeclaration } from '../manifest';
import { toolErrorText, unknownToolText } from './parts';
import type { NestedCall, ToolContext, ToolSpec } from './toolSpec';

/**
 * Every tool's spec by name. Each spec file adds its tool here (`declare module './registry'`), so
 * the `ToolName` union is exactly the tools whose spec files exist, and no list has to name them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- filled by the spec files' declarations
export interface ToolSpecs {}

/** A tool's name: the union of the names the spec files declare. */
export type ToolName = keyof ToolSpecs;

/** `run_command` → `runCommand`: the module (`./runCommand.ts`) and the export (`runCommandSpec`) of a tool's spec. */
export function specModuleName(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

/** The spec package.json's tool `name` has, from its module; a tool declared without one stops the load, naming the file. */
export function loadSpec(name: string): ToolSpec<unknown> {
  const module = specModuleName(name);
  // A dynamic require is a glob for esbuild: it bundles every module of this folder, so a new tool's
  // spec file is found from its manifest entry alone.
  let exports: Record<string, unknown> = {};
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    exports = require(`./${module}.ts`) as Record<string, unknown>;
  } catch (error) {
    // Only a missing module is the missing spec below; a spec module that fails to load says why itself.
    const missing = (error as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' || String(error).includes('Module not found in bundle');
    if (!missing) throw error;
  }
  const spec = exports[`${module}Spec`] as ToolSpec<unknown> | undefined;
  if (spec?.name !== name)
    throw new Error(`package.json declares the tool ${name}, but src/core/tools/${module}.ts exports no ${module}Spec named so.`);
  return spec;
}

/** Every tool's name, in manifest order (test/unit/toolNames.test.ts checks the spec files and package.json agree). */
export const TOOL_NAMES = TOOL_DECLARATIONS.map((declaration) => declaration.name) as readonly ToolName[];

export function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(name);
}

export const TOOL_SPECS = Object.fromEntries(TOOL_NAMES.map((name) => [name, loadSpec(name)])) as unknown as Readonly<ToolSpecs>;

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
  /** The copies the run retained, as the spec told `onRetained` (absent when none): a nested caller's data. */
  outputIds?: string[];
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
    const outputIds: string[] = [];
    const onRetained = (retained: readonly string[]) => {
      outputIds.push(...retained);
      context.onRetained?.(retained);
    };
    const text = await spec.run(input, { ...context, onRetained, callTool: context.callTool ?? nestedCall(context) });
    return outputIds.length > 0 ? { text, isError: false, outputIds } : { text, isError: false };
  } catch (error) {
    return { text: toolErrorText(name, error), isError: true };
  } finally {
    // A sign that our tools are in use: the search across outputs gets ready in the background, once
    // this call is done. Started before it, the warm-up shared the search worker with a first call that
    // was itself a search across outputs, which then took 1.8 times its CPU.
    void context.catalog?.warm();
  }
}

/**
 * run_code's `tools.call` on this registry (the MCP server's; VS Code goes through vscode.lm so the
 * nested tool asks for its own confirmation, and lands in invokeTool all the same). A nested failure
 * rejects with the text the model would read, which the program can catch; a success gives the text
 * and the copies the run retained. The nested run gets the setting's preview size: a client's limit
 * is for what reaches the model, and the program reads this.
 */
export function nestedCall(context: ToolContext): NestedCall {
  return async (name, input, ended) => {
    if (!isToolName(name)) throw new Error(unknownToolText(name, nestedToolNames(TOOL_NAMES)));
    const run = await invokeTool(name, input, { ...context, previewBytes: undefined, signal: AbortSignal.any([context.signal, ended]) });
    if (run.isError) throw new Error(run.text);
    return { text: run.text, outputIds: run.outputIds };
  };
}

/** The tools a program may call, out of `names` (a program cannot start another program). */
export function nestedToolNames(names: readonly string[]): string[] {
  return names.filter((name) => name !== RUN_CODE_TOOL);
}
