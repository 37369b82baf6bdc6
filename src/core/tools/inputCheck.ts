/**
 * Checks a value against the JSON Schema subset the manifest uses, with messages a model (or a
 * person at a command line) can act on. VS Code validates tool inputs against the manifest before
 * calling a tool; MCP clients do not, so the MCP server checks them here, against the same schemas.
 */
import { RecallError } from '../errors';
import type { JsonSchema } from '../manifest';

/** The schema keywords understood here; a unit test fails when the manifest uses any other. */
export const CHECKED_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'enum',
  // Annotations, not constraints.
  'description',
  'markdownDescription',
  'default',
]);

/**
 * What is wrong with `value` as an instance of `schema` ("must be …; got …"), or undefined when it
 * fits. `shown` is how the value is named after "got" (a command line names the text it was given).
 */
export function schemaProblem(schema: JsonSchema, value: unknown, shown: string = describe(value)): string | undefined {
  const got = `; got ${shown}`;
  switch (schema.type) {
    case 'string':
      if (typeof value !== 'string') return `must be a string${got}`;
      if (schema.enum && !schema.enum.includes(value))
        return `must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}${got}`;
      return undefined;
    case 'boolean':
      if (typeof value !== 'boolean') return `must be true or false${got}`;
      return undefined;
    case 'integer':
    case 'number': {
      const kind = schema.type === 'integer' ? 'an integer' : 'a number';
      const fits =
        typeof value === 'number' &&
        Number.isFinite(value) &&
        (schema.type === 'number' || Number.isInteger(value)) &&
        (schema.minimum === undefined || value >= schema.minimum) &&
        (schema.exclusiveMinimum === undefined || value > schema.exclusiveMinimum) &&
        (schema.maximum === undefined || value <= schema.maximum);
      return fits ? undefined : `must be ${kind}${range(schema)}${got}`;
    }
    case 'array': {
      if (!Array.isArray(value)) return `must be an array${got}`;
      for (const [index, item] of value.entries()) {
        const problem = schema.items && schemaProblem(schema.items, item);
        if (problem) return `item ${index} ${problem}`;
      }
      return undefined;
    }
    case 'object':
      return objectProblem(schema, value);
    default:
      return undefined;
  }
}

/**
 * How deep tool inputs may nest (objects and arrays inside each other). The manifest's inputs are one
 * object of plain values; the bound is far above that and far below what would overflow the call
 * stack of the recursive checks and the JSON.stringify that follow.
 */
export const MAX_INPUT_DEPTH = 64;

/** Throws RecallError INVALID_ARGUMENT when `input` does not fit a tool's input schema. */
export function checkToolInput(schema: JsonSchema, input: unknown): void {
  // First, and without recursion: an input nested 5,000 deep would overflow the checks below.
  if (nestingDepth(input, MAX_INPUT_DEPTH) > MAX_INPUT_DEPTH) {
    throw new RecallError(
      'INVALID_ARGUMENT',
      `the input nests objects or arrays more than ${MAX_INPUT_DEPTH} levels deep; tool inputs are flat objects of strings, numbers and booleans. Pass the values themselves.`,
    );
  }
  const problem = schemaProblem(schema, input);
  if (problem) throw new RecallError('INVALID_ARGUMENT', `the input ${problem}`);
}

function objectProblem(schema: JsonSchema, value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return `must be a JSON object; got ${describe(value)}`;
  const properties = schema.properties ?? {};
  const record = value as Record<string, unknown>;
  for (const name of schema.required ?? []) {
    if (record[name] === undefined) return `needs "${name}"${hint(properties[name])}`;
  }
  for (const [name, item] of Object.entries(record)) {
    const property = properties[name];
    if (!property) {
      if (schema.additionalProperties === false) {
        return `has an unknown property "${name}"; the properties are ${Object.keys(properties).join(', ')}`;
      }
      continue;
    }
    const problem = schemaProblem(property, item);
    if (problem) return `property "${name}" ${problem}${hint(property)}`;
  }
  return undefined;
}

function range(schema: JsonSchema): string {
  const low =
    schema.exclusiveMinimum !== undefined ? `> ${schema.exclusiveMinimum}` : schema.minimum !== undefined ? `≥ ${schema.minimum}` : '';
  const high = schema.maximum !== undefined ? `≤ ${schema.maximum}` : '';
  return low && high ? ` ${low} and ${high}` : low || high ? ` ${low || high}` : '';
}

const hint = (schema: JsonSchema | undefined): string => (schema?.description ? ` (${schema.description})` : '');

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  const json = JSON.stringify(value);
  return json.length > 80 ? `${json.slice(0, 77)}…` : json;
}

/** How deep `value` nests, counted iteratively, stopping once it is past `limit` (then limit + 1). */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item !== 'object' || item === null) continue;
    if (depth > limit) return limit + 1;
    deepest = Math.max(deepest, depth);
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}
