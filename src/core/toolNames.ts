/**
 * The names of the tools that texts across the engine cite (a marker that says which tool reads the
 * rest, a retained copy's `tool`), for their specs and those texts alike, so a name cannot drift
 * between them. The list of all tools, and the `ToolName` union, is the registry
 * (src/core/tools/registry.ts); a new tool that no other text cites names itself in its spec.
 */
export const READ_TOOL_OUTPUT_TOOL = 'read_tool_output';
export const SEARCH_TOOL_OUTPUT_TOOL = 'search_tool_output';
export const READ_FILE_PAGE_TOOL = 'read_file_page';
export const RUN_COMMAND_TOOL = 'run_command';
export const RUN_CODE_TOOL = 'run_code';
export const LIST_TOOL_OUTPUTS_TOOL = 'list_tool_outputs';
