/**
 * The names of the language-model tools the extension contributes, as package.json declares them
 * (`contributes.languageModelTools`: `name`, and `toolReferenceName`, which is the same). Every tool
 * spec, every text that tells the model which tool to call next, and every retained copy's `tool`
 * takes its name from here, so a name cannot drift between the registration, the manifest and the
 * messages; test/unit/toolNames.test.ts fails when this module and package.json disagree.
 */
export const READ_TOOL_OUTPUT_TOOL = 'read_tool_output';
export const SEARCH_TOOL_OUTPUT_TOOL = 'search_tool_output';
export const READ_FILE_PAGE_TOOL = 'read_file_page';
export const RUN_COMMAND_TOOL = 'run_command';
export const RUN_CODE_TOOL = 'run_code';

/**
 * Every tool, in manifest order. Each per-tool table (src/core/tools/registry.ts, the VS Code
 * messages) is keyed by `ToolName`, so a name added here without its entries fails to compile.
 */
export const TOOL_NAMES = [READ_TOOL_OUTPUT_TOOL, SEARCH_TOOL_OUTPUT_TOOL, RUN_COMMAND_TOOL, READ_FILE_PAGE_TOOL, RUN_CODE_TOOL] as const;

export type ToolName = (typeof TOOL_NAMES)[number];

export function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as readonly string[]).includes(name);
}
