/**
 * `tool-output-recall-mcp hook claude-code-post-tool-use`: a PostToolUse hook for Claude Code's own
 * tools (Bash above all). When a tool's output is too large to hand the model, Claude Code 2.1.332
 * saves it whole to a file under its `tool-results` folder (spillFiles.ts) and the model gets a
 * ~2 KB `<persisted-output>` note: the path and the output's first 2,000 characters. The hook's
 * event says so (`tool_response.persistedOutputPath`, `persistedOutputSize`) but its `stdout` holds
 * only ~30 KB of the output, so the hook cannot retain the output itself; it points the model at the
 * saved file instead, through `hookSpecificOutput.additionalContext` (the shape Claude Code's
 * PostToolUse output schema accepts): the path, its size and whether it is whole, the exact
 * search_tool_output / read_file_page calls that read it, the notable lines past what the model saw
 * (the engine's scanner and block) and the file's last lines, in at most CONTEXT_BYTES.
 *
 * It never fails the tool: any problem is one line on stderr, nothing on stdout, exit code 0.
 */
import { CLAUDE_HOOK_ARGS } from '../core/agents/claudeHook';
import { DEFAULT_SENSITIVE_PATTERNS, maskSecrets, openReadableFile, type OpenedFile } from '../core/files';
import { clip, renderNotableBlock } from '../core/notable/render';
import { NotableScanner } from '../core/notable/scanner';
import { READ_FILE_PAGE_TOOL, SEARCH_TOOL_OUTPUT_TOOL } from '../core/toolNames';
import { formatBytes } from '../core/limits';
import { describeError } from '../core/errors';
import { PROGRAM } from './log';

/** The hook's name, after `hook` (`tool-output-recall-mcp hook claude-code-post-tool-use`). */
const CLAUDE_POST_TOOL_USE = CLAUDE_HOOK_ARGS[1];

/** The characters of a saved output Claude Code 2.1.332 shows the model in its note (`r$=2000` in its code). */
export const CLAUDE_PREVIEW_CHARS = 2000;
/** The most the context may hold (UTF-8 bytes): the model reads it on every later turn. */
export const CONTEXT_BYTES = 4096;
/** The file's last bytes shown, at most (from the first line break in them). */
export const TAIL_BYTES = 1536;
/** Room for the notable lines. */
const NOTABLE_BYTES = 1400;
/** Bytes read per step when scanning the saved file. */
const SCAN_CHUNK = 1024 * 1024;

/** The part of Claude Code's PostToolUse event the hook reads. */
interface PostToolUseEvent {
  tool_name?: unknown;
  cwd?: unknown;
  tool_response?: { persistedOutputPath?: unknown; persistedOutputSize?: unknown };
}

/** Runs `hook <name>`: reads the event on stdin, writes the hook's JSON output (or nothing) on stdout. */
export async function runHook(args: readonly string[], stdin: NodeJS.ReadableStream = process.stdin): Promise<void> {
  try {
    if (args[0] !== CLAUDE_POST_TOOL_USE) throw new Error(`unknown hook "${args[0] ?? ''}" (expected ${CLAUDE_POST_TOOL_USE})`);
    const chunks: Buffer[] = [];
    for await (const chunk of stdin) chunks.push(Buffer.from(chunk as Buffer));
    const context = await savedOutputContext(JSON.parse(Buffer.concat(chunks).toString('utf8')) as PostToolUseEvent);
    if (context !== undefined) {
      process.stdout.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: context } })}\n`);
    }
  } catch (error) {
    process.stderr.write(`[${PROGRAM}] hook: ${describeError(error)}\n`);
  }
}

/**
 * The additionalContext for one PostToolUse event, or undefined when the tool's output was not
 * saved to a file (the model saw all of it) or the file is not one the read tools would read.
 */
export async function savedOutputContext(event: PostToolUseEvent): Promise<string | undefined> {
  const response = event.tool_response;
  const saved = response?.persistedOutputPath;
  if (typeof saved !== 'string' || saved === '') return undefined;
  const tool = typeof event.tool_name === 'string' ? event.tool_name : 'tool';
  // The same policy the read tools apply (a file Claude Code saved, no link out, no FIFO, nothing
  // sensitive): the context names only a file they will read.
  const folders = typeof event.cwd === 'string' && event.cwd !== '' ? [event.cwd] : [];
  const file = await openReadableFile(saved, { folders, allowOutsideWorkspace: false, sensitivePatterns: DEFAULT_SENSITIVE_PATTERNS });
  try {
    const size = file.stats.size;
    const declared = typeof response?.persistedOutputSize === 'number' ? response.persistedOutputSize : size;
    const whole =
      size >= declared
        ? `${size} bytes, the complete output`
        : `its first ${size} of ${declared} bytes: Claude Code saved no more, the rest is lost`;
    const quoted = JSON.stringify(saved);
    const head = [
      `[Tool Output Recall] The ${tool} output was saved to ${saved} (${whole}; ${formatBytes(size)}). You saw only a note with its first ${CLAUDE_PREVIEW_CHARS} characters.`,
      `Do not run the command again to see more: search the file with ${SEARCH_TOOL_OUTPUT_TOOL} {"path": ${quoted}, "pattern": "…"} and read around a match with ${READ_FILE_PAGE_TOOL} {"path": ${quoted}, "byteOffset": N} (N: the match's lineOffset), or a line with {"path": ${quoted}, "line": N}.`,
    ].join('\n');
    const notable = await notableLines(file);
    const tail = await lastLines(file, size);
    const parts = [head, notable && `${notable} (line numbers of the file)`, tail].filter(Boolean);
    return clip(parts.join('\n'), CONTEXT_BYTES);
  } finally {
    await file.handle.close();
  }
}

/** The notable lines past the model's preview, as the preview's own block renders them ('' when none). */
async function notableLines(file: OpenedFile): Promise<string> {
  const scanner = new NotableScanner('command', { offset: 0, line: 1, ignoreBefore: CLAUDE_PREVIEW_CHARS });
  const buffer = Buffer.allocUnsafe(SCAN_CHUNK);
  for (let position = 0; ;) {
    const { bytesRead } = await file.handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    scanner.write(buffer.subarray(0, bytesRead));
    position += bytesRead;
  }
  // Line numbers, not read_tool_output offsets: the lines are read with read_file_page {line}.
  const block = renderNotableBlock({ omitted: scanner.finish(), readable: false }, NOTABLE_BYTES).text.trimEnd();
  return masked(Buffer.from(block));
}

/** The file's last lines (at most TAIL_BYTES, from a line's start when one begins in them), secrets masked. */
async function lastLines(file: OpenedFile, size: number): Promise<string> {
  if (size <= CLAUDE_PREVIEW_CHARS) return '';
  const from = Math.max(0, size - TAIL_BYTES);
  const buffer = Buffer.alloc(size - from);
  const { bytesRead } = await file.handle.read(buffer, 0, buffer.length, from);
  const bytes = buffer.subarray(0, bytesRead);
  const lineStart = from === 0 ? 0 : bytes.indexOf(0x0a) + 1;
  const start = lineStart > 0 && lineStart < bytes.length ? lineStart : 0;
  return `[the file's last ${bytes.length - start} bytes, from byteOffset ${from + start}:]\n${masked(bytes.subarray(start)).trimEnd()}`;
}

/** `bytes` as text with its secret-shaped values masked, as read_file_page masks them. */
function masked(bytes: Buffer): string {
  maskSecrets(bytes);
  return bytes.toString('utf8');
}
