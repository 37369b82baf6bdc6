/**
 * The extension's manifest (package.json) as the engine reads it: the language-model tools it
 * declares (name, description, input schema) and the settings (`contributes.configuration`). The
 * MCP server lists exactly these tools and takes its defaults from these settings, so what Claude
 * Code sees cannot drift from what VS Code sees. esbuild inlines the JSON into each bundle that uses
 * this module, so a copy of dist/mcp.js needs no package.json beside it.
 */

/** The JSON Schema subset the manifest uses (inputCheck.ts checks exactly these keywords). */
export interface JsonSchema {
  type?: 'object' | 'string' | 'integer' | 'number' | 'boolean' | 'array';
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean;
  items?: JsonSchema;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  /** The only values a string may take. */
  enum?: string[];
  description?: string;
  markdownDescription?: string;
  default?: unknown;
}

export interface ToolDeclaration {
  name: string;
  displayName: string;
  modelDescription: string;
  inputSchema: JsonSchema & { type: 'object'; properties: Record<string, JsonSchema> };
}

interface Manifest {
  name: string;
  version: string;
  contributes: {
    languageModelTools: ToolDeclaration[];
    configuration: { properties: Record<string, JsonSchema> };
  };
}

// A require, not an import: the tsconfig has no resolveJsonModule, and the bundler inlines it either way.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const manifest = require('../../package.json') as Manifest;
// The manifest's person-facing strings are `%key%` references into package.nls.json (VS Code picks
// the translation); outside VS Code they read as their English text.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const english = require('../../package.nls.json') as Record<string, string>;
const resolved = (value: string): string => english[/^%(.+)%$/.exec(value)?.[1] ?? ''] ?? value;

export const PACKAGE_NAME = manifest.name;
export const PACKAGE_VERSION = manifest.version;

/** Every language-model tool the extension contributes, in manifest order. */
export const TOOL_DECLARATIONS: readonly ToolDeclaration[] = manifest.contributes.languageModelTools.map((tool) => ({
  ...tool,
  displayName: resolved(tool.displayName),
}));

/** The prefix of every setting key in the manifest. */
export const SETTINGS_SECTION = 'toolOutputRecall';

/** The schema of the setting `toolOutputRecall.<key>` (key without the prefix), or undefined. */
export function settingSchema(key: string): JsonSchema | undefined {
  return manifest.contributes.configuration.properties[`${SETTINGS_SECTION}.${key}`];
}
