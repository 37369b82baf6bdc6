import { ECHO_CHARS, RecallError, clipEcho, describeError, type RecallErrorCode } from '../errors';

/**
 * Largest text part of a tool result. Copilot Chat writes any single text part longer than 8 KiB to
 * a file and shows the model only a pointer; MCP clients (Claude Code, Codex) cap or spill large
 * content blocks too. So every result, in VS Code and over MCP, is plain text parts of at most this.
 */
export const MAX_PART_BYTES = 8000;

/** Splits text into parts of at most MAX_PART_BYTES UTF-8 bytes, preferring line breaks. */
export function splitIntoParts(text: string): string[] {
  const parts: string[] = [];
  let rest = text;
  while (Buffer.byteLength(rest, 'utf8') > MAX_PART_BYTES) {
    // Find the longest prefix within the byte limit (chars ≤ bytes, so start from the limit).
    let end = Math.min(rest.length, MAX_PART_BYTES);
    while (Buffer.byteLength(rest.slice(0, end), 'utf8') > MAX_PART_BYTES) end = Math.floor(end * 0.9);
    const code = rest.charCodeAt(end - 1);
    if (code >= 0xd800 && code <= 0xdbff) end--; // never split a surrogate pair
    const lineBreak = rest.lastIndexOf('\n', end - 1);
    if (lineBreak > end / 2) end = lineBreak + 1;
    parts.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  if (rest.length > 0 || parts.length === 0) parts.push(rest);
  return parts;
}

/**
 * The text a model gets for a failed tool call: always `<tool> failed (<CODE>): <message>`. Engine
 * errors already say what to do next and carry their code; anything else (an errno from the file
 * system or `spawn`, a RangeError) gets the code that fits it and a sentence on what to do. The
 * message is bounded: inputs it repeats are clipped (see boundMessage).
 */
export function toolErrorText(tool: string, error: unknown): string {
  const { code, message } = error instanceof RecallError ? error : asRecallError(error);
  return `${tool} failed (${code}): ${boundMessage(message)}`;
}

/** What an error from outside the engine means to the model, by its errno or Node error code. */
const FOREIGN_ERRORS: Record<string, [RecallErrorCode, string]> = {
  ENOENT: ['NOT_FOUND', 'There is no such file or folder. Check the path'],
  ENOTDIR: ['NOT_FOUND', 'A part of the path is a file, not a folder. Check the path'],
  EISDIR: ['INVALID_ARGUMENT', 'The path is a folder, not a file. Pass the path of a file inside it'],
  ENAMETOOLONG: ['INVALID_ARGUMENT', 'The path, or a name in it, is longer than the file system allows. Pass a shorter path'],
  ELOOP: ['INVALID_ARGUMENT', 'The path goes through too many symbolic links (a loop?). Pass the real path'],
  E2BIG: [
    'INVALID_ARGUMENT',
    'The command line is longer than the system passes to a new process. Write the long part to a file (a script or a data file) and run or read that',
  ],
  EACCES: ['REFUSED', 'The system denied permission. Do not retry the same call: use a path or command this user may use'],
  EPERM: ['REFUSED', 'The system denied permission. Do not retry the same call: use a path or command this user may use'],
  // Node's own argument checks: in practice a NUL character in a path or a command line.
  ERR_INVALID_ARG_VALUE: ['INVALID_ARGUMENT', 'An input holds a value no path or command line can carry (a NUL character?). Remove it'],
  ERR_INVALID_ARG_TYPE: ['INVALID_ARGUMENT', 'An input holds a value no path or command line can carry (a NUL character?). Remove it'],
};

function asRecallError(error: unknown): { code: RecallErrorCode; message: string } {
  const cause = describeError(error);
  if (error instanceof RangeError && /call stack/i.test(error.message)) {
    return { code: 'INVALID_ARGUMENT', message: `The input is nested too deeply to process (${cause}). Pass plain, flat values.` };
  }
  const code = (error as NodeJS.ErrnoException | undefined)?.code ?? '';
  const known = Object.hasOwn(FOREIGN_ERRORS, code) ? FOREIGN_ERRORS[code] : undefined;
  if (known) return { code: known[0], message: `${known[1]} (${cause}).` };
  return {
    code: 'INTERNAL',
    message: `${cause}. This failure was not expected; the same call may work if retried, and if it keeps failing, tell the user.`,
  };
}

/** Most characters of an error message; past it, its middle is cut (the end says what to do next). */
const MAX_MESSAGE_CHARS = 4000;

/**
 * `message` with every run of more than ECHO_CHARS non-space characters clipped (an echoed path,
 * ID or argument), and then, if it is still long, its middle: an error repeats inputs, never whole.
 */
export function boundMessage(message: string): string {
  const clipped = message.replace(new RegExp(`\\S{${ECHO_CHARS + 1},}`, 'g'), (run) => clipEcho(run));
  if (clipped.length <= MAX_MESSAGE_CHARS) return clipped;
  const tail = MAX_MESSAGE_CHARS / 4;
  const head = clipEcho(clipped.slice(0, clipped.length - tail), MAX_MESSAGE_CHARS - tail);
  return `${head} ${clipped.slice(-tail)}`;
}

/** What a program's `tools.call` of a tool that does not exist rejects with. */
export function unknownToolText(name: string, available: readonly string[]): string {
  const listed = available.slice(0, 60).join(', ') + (available.length > 60 ? `, … (${available.length - 60} more)` : '');
  return `There is no tool named ${JSON.stringify(clipEcho(name))}. Available tools: ${listed || 'none'}.`;
}
