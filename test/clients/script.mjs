// What the scripted model does each turn, decided only from the conversation the CLI sent (the views
// of model.mjs): nothing is hard-coded but the tools' names' endings and the field it looks for.
//
// The evidence chain: load our tools if the client defers them (Claude Code's ToolSearch, Codex's
// tool_search), run_command on a big output → search_tool_output with the outputId it read in the
// result → read_tool_output at the match's lineOffset → a final answer quoting the field. A result it
// cannot parse ends the turn with an answer starting "FAILED:" (and why), so a client that cut the
// evidence ends the run promptly, and the suite says what was missing.

const call = (name, input) => ({ kind: 'call', name, input });
const final = (text) => ({ kind: 'final', text });

/** Our tool's name as this client shows it to the model (Claude Code: mcp__tool-output-recall__x; Codex: mcp__tool_output_recall.x). */
export const ourTool = (names, tool) => names.find((name) => /tool[-_]output[-_]recall/.test(name) && name.endsWith(tool));
export const isOurs = (name) => /tool[-_]output[-_]recall/.test(name);

/** A turn that asks the client's tool search for our tools, or undefined when there is none (or it was tried twice). */
function loadOurTools(view) {
  if (!view.toolSearch || view.calls.filter((c) => c.name === view.toolSearch).length >= 2) return undefined;
  if (view.api === 'responses')
    return call(view.toolSearch, { query: 'tool output recall run_command search_tool_output read_tool_output', limit: 8 });
  const ours = view.deferred.filter(isOurs);
  // Qwen Code: `select:` returns the schemas (then the tools are called through its tool_call bridge).
  if (view.api === 'chat') return call(view.toolSearch, { query: ours.length ? `select:${ours.join(',')}` : 'tool-output-recall' });
  // Before the server has listed its tools they are not in the list yet; the keyword query waits for it.
  return call(view.toolSearch, ours.length ? { query: `select:${ours.join(',')}` } : { query: '+tool-output-recall', max_results: 10 });
}

/** The scripted model for the evidence chain; `field` is the key of the line to find (e.g. "checksum"). */
export function evidenceScript({ command, field }) {
  return (view) => {
    const run = ourTool(view.callable, 'run_command');
    const search = ourTool(view.callable, 'search_tool_output');
    const read = ourTool(view.callable, 'read_tool_output');
    const answered = view.calls.filter((c) => c.result);
    const ours = answered.filter((c) => isOurs(c.name));
    if (!run || !search || !read) {
      return loadOurTools(view) ?? final(`FAILED: our tools are not callable (the model was offered ${view.callable.length} tools)`);
    }
    const last = ours.at(-1);
    if (!last) return call(run, { command });
    const text = last.result.text;
    if (last.result.isError) return final(`FAILED: ${last.name} returned an error: ${text.slice(0, 300)}`);
    if (last.name === run) {
      const outputId = /outputId "(out_[0-9a-z]+)"/.exec(text)?.[1] ?? /"outputId":"(out_[0-9a-z]+)"/.exec(text)?.[1];
      if (!outputId) return final('FAILED: no outputId in the run_command result the model received');
      return call(search, { outputId, pattern: `${field}=` });
    }
    if (last.name === search) {
      // Lines of JSON: the summary, then one per match (a client may put its own lines around them).
      const lines = text.split('\n').map((line) => safeJson(line.slice(line.indexOf('{'))));
      const summary = lines.find((line) => typeof line?.outputId === 'string');
      const match = lines.find((line) => typeof line?.lineOffset === 'number');
      if (!summary?.outputId || !match) return final(`FAILED: no match in the search result the model received: ${text.slice(0, 300)}`);
      return call(read, { outputId: summary.outputId, offset: match.lineOffset, maxBytes: 256 });
    }
    if (last.name === read) {
      const value = new RegExp(`${field}=([0-9a-z]+)`).exec(text)?.[1];
      return final(value ? `The ${field} is ${value}.` : `FAILED: no ${field} in the page the model received`);
    }
    return final(`FAILED: unexpected last call ${last.name}`);
  };
}

/** A one-turn script: the client's own shell tool runs `command`, then the model answers with what it saw. */
export function shellScript({ tool, input, field }) {
  return (view) => {
    const done = view.calls.find((c) => c.name === tool && c.result);
    if (!done) return view.callable.includes(tool) ? call(tool, input) : final(`FAILED: no ${tool} tool`);
    const value = new RegExp(`${field}=([0-9a-z]+)`).exec(done.result.text)?.[1];
    return final(value ? `The ${field} is ${value}.` : `The ${field} was not in the ${done.result.text.length} characters I received.`);
  };
}

/** Every text in a Messages API request's messages (tool results' too): where a client puts a hook's additionalContext. */
export function requestTexts(body) {
  const texts = [];
  const walk = (content) => {
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content)) for (const block of content) walk(block.type === 'tool_result' ? block.content : (block.text ?? ''));
  };
  for (const message of body.messages ?? []) walk(message.content);
  return texts;
}

/** The opening of our PostToolUse hook's context (src/mcp/hook.ts). */
export const HOOK_CONTEXT = '[Tool Output Recall] The ';

/**
 * Claude Code's own Bash prints a big output, which Claude Code saves to a file; our PostToolUse hook
 * adds a context to the next request, naming either the outputId our server retained the output under
 * or the saved file. The model takes the outputId (or the path) from there, not from Claude Code's
 * note, searches for the field (search_tool_output {outputId} or {path}) and reads the line at the
 * match's lineOffset (read_tool_output {outputId, offset} or read_file_page {path, byteOffset}), then
 * answers.
 */
export function bashRecallScript({ command, field }) {
  return (view) => {
    const bash = view.calls.find((c) => c.name === 'Bash');
    if (!bash)
      return view.callable.includes('Bash')
        ? call('Bash', { command, description: 'Print a large output' })
        : final('FAILED: no Bash tool');
    if (!bash.result) return final('FAILED: the Bash call has no result');
    const context = requestTexts(view.body).find((text) => text.includes(HOOK_CONTEXT));
    if (!context) return final('FAILED: no context from our PostToolUse hook in the request after Bash');
    const target = hookTarget(context);
    if (!target) return final(`FAILED: no outputId or path in the hook's context: ${context.slice(0, 300)}`);
    const search = ourTool(view.callable, 'search_tool_output');
    const read = ourTool(view.callable, target.outputId ? 'read_tool_output' : 'read_file_page');
    if (!search || !read) return loadOurTools(view) ?? final('FAILED: our tools are not callable');
    const ours = view.calls.filter((c) => isOurs(c.name) && c.result);
    const last = ours.at(-1);
    if (!last) return call(search, { ...target, pattern: `${field}=` });
    if (last.result.isError) return final(`FAILED: ${last.name} returned an error: ${last.result.text.slice(0, 300)}`);
    if (last.name === search) {
      const match = last.result.text
        .split('\n')
        .map((line) => safeJson(line.slice(line.indexOf('{'))))
        .find((line) => typeof line?.lineOffset === 'number');
      if (!match) return final(`FAILED: no match in the search result: ${last.result.text.slice(0, 300)}`);
      return call(read, target.outputId ? { ...target, offset: match.lineOffset } : { ...target, byteOffset: match.lineOffset });
    }
    const value = new RegExp(`${field}=([0-9a-z]+)`).exec(last.result.text)?.[1];
    return final(value ? `The ${field} is ${value}.` : `FAILED: no ${field} in the page the model received`);
  };
}

/** What our hook's context points at: `{ outputId }` (the server retained the output) or `{ path }` (Claude Code's saved file). */
export function hookTarget(context) {
  const outputId = /retained as outputId "(out_[0-9a-z]+)"/.exec(context)?.[1];
  if (outputId) return { outputId };
  const saved = /search_tool_output \{"path": ("(?:[^"\\]|\\.)*")/.exec(context)?.[1];
  return saved ? { path: JSON.parse(saved) } : undefined;
}

/** Answers at once, without calling anything (for the start-up race: what tools did the first request offer?). */
export const answerScript = () => () => final('ok');

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Finds the largest text a client passes whole, with the stub server's `emit` tool (stub-server.mjs):
 * a binary search on ASCII sizes between `lo` (assumed whole) and `hi` (assumed cut), then one text of
 * 2-byte characters more bytes than that but no more characters, which says whether the client counts
 * bytes or characters. Each step is decided from what the client sent back; the answer is a JSON line
 * `{ "wholeBytes": L, "cutBytes": L + 1, "counts": "bytes" | "characters" }`.
 */
export function limitProbeScript({ lo = 1024, hi = 1 << 20 } = {}) {
  return (view) => {
    const emit = view.callable.find((name) => /size[-_]probe/.test(name) && name.endsWith('emit'));
    if (!emit) return final('FAILED: no emit tool');
    let [whole, cut] = [lo, hi];
    let wide;
    for (const c of view.calls.filter((c) => c.name === emit && c.result)) {
      const passed = c.result.text.includes(probeText(c.input.bytes, c.input.char));
      if (c.input.char) wide = passed;
      else if (passed) whole = Math.max(whole, c.input.bytes);
      else cut = Math.min(cut, c.input.bytes);
    }
    if (cut - whole > 1) return call(emit, { bytes: Math.floor((whole + cut) / 2) });
    // 2-byte characters: whole + 2 bytes (over the limit in bytes), (whole + 2) / 2 characters (under it in characters).
    if (wide === undefined) return call(emit, { bytes: whole + 2 - (whole % 2), char: 'é' });
    return final(JSON.stringify({ wholeBytes: whole, cutBytes: cut, counts: wide ? 'characters' : 'bytes' }));
  };
}

/** The text stub-server.mjs's emit returns: `bytes` bytes of `char` repeated, the remainder in 'a'. */
export function probeText(bytes, char = 'a') {
  const width = Buffer.byteLength(char);
  const whole = Math.floor(bytes / width);
  return char.repeat(whole) + 'a'.repeat(bytes - whole * width);
}

/** Every string in a request body, depth first: where a client puts a hook's context differs (a tool result, a message of its own). */
export function stringsIn(value, out = []) {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, out);
  else if (value && typeof value === 'object') for (const item of Object.values(value)) stringsIn(item, out);
  return out;
}

/**
 * Our hook's context as the model got it in `body`: from its opening to the end of the string that holds
 * it, or to the closing tag a client wraps it in (Gemini CLI `</hook_context>`, Qwen Code escaped).
 */
export function hookContextIn(body) {
  for (const text of stringsIn(body)) {
    const at = text.indexOf(HOOK_CONTEXT);
    if (at < 0) continue;
    const rest = text.slice(at);
    const end = rest.search(/<\/|&lt;\/|\\u003c\//);
    return { context: end < 0 ? rest : rest.slice(0, end), holder: text, at };
  }
  return undefined;
}

/**
 * An agent's own shell tool (`tool`, `input`: Gemini CLI and Qwen Code run_shell_command, Copilot CLI
 * bash) prints a big output; our post-tool hook, as Connect Other Agents writes it, hands it to our
 * server and adds a context (the outputId, the calls, the notable lines, the last lines). The model
 * reads that context: the field in it → the answer at once (0 calls of our tools); else
 * search_tool_output {outputId, pattern} (the field on the matching line → the answer), else
 * read_tool_output at the match's lineOffset. No context after the shell call ends the run "FAILED:".
 */
export function hookRecallScript({ tool, input, field }) {
  const fieldOf = (text) => new RegExp(`${field}=([0-9a-f]{12})\\b`).exec(text)?.[1];
  return (view) => {
    const shell = view.calls.find((c) => c.name === tool);
    if (!shell)
      return view.callable.includes(tool) ? call(tool, input) : final(`FAILED: no ${tool} tool (offered: ${view.callable.join(', ')})`);
    if (!shell.result) return final(`FAILED: the ${tool} call has no result`);
    const found = hookContextIn(view.body);
    if (!found) return final(`FAILED: no context from our hook in the request after ${tool}`);
    const ours = view.calls.filter((c) => isOurs(c.name) && c.result);
    const inContext = fieldOf(found.context);
    if (!ours.length && inContext) return final(`The ${field} is ${inContext}.`);
    const outputId = /retained as outputId "(out_[0-9a-z]+)"/.exec(found.context)?.[1];
    if (!outputId) return final(`FAILED: no outputId in the hook's context: ${found.context.slice(0, 300)}`);
    const search = ourTool(view.callable, 'search_tool_output');
    const read = ourTool(view.callable, 'read_tool_output');
    if (!search || !read) return loadOurTools(view) ?? final('FAILED: our tools are not callable');
    const last = ours.at(-1);
    if (!last) return call(search, { outputId, pattern: `${field}=` });
    if (last.result.isError) return final(`FAILED: ${last.name} returned an error: ${last.result.text.slice(0, 300)}`);
    const value = fieldOf(last.result.text);
    if (value) return final(`The ${field} is ${value}.`);
    if (last.name === search) {
      const match = last.result.text
        .split('\n')
        .map((line) => safeJson(line.slice(line.indexOf('{'))))
        .find((line) => typeof line?.lineOffset === 'number');
      if (!match) return final(`FAILED: no match in the search result: ${last.result.text.slice(0, 300)}`);
      return call(read, { outputId, offset: match.lineOffset, maxBytes: 256 });
    }
    return final(`FAILED: no ${field} in what ${last.name} returned`);
  };
}

/** The first agent of a "lost id" run: runs `command` with our run_command, then ends its turn. */
export function runOnlyScript({ command }) {
  return (view) => {
    const run = ourTool(view.callable, 'run_command');
    if (!run) return loadOurTools(view) ?? final('FAILED: run_command is not callable');
    const done = view.calls.find((c) => c.name === run && c.result);
    return done ? final('Ran it.') : call(run, { command });
  };
}

/**
 * The second agent of a "lost id" run (issue 38): it has no outputId, only the word it needs. It
 * searches every retained output of the workspace (search_tool_output without an outputId, "session":
 * "all"), takes the first output's row and match from the result (the row names the other agent's
 * session), reads the match's line with that session, and answers.
 */
export function lostIdScript({ field }) {
  return (view) => {
    const search = ourTool(view.callable, 'search_tool_output');
    const read = ourTool(view.callable, 'read_tool_output');
    if (!search || !read) return loadOurTools(view) ?? final('FAILED: our tools are not callable');
    const ours = view.calls.filter((c) => isOurs(c.name) && c.result);
    const last = ours.at(-1);
    if (!last) return call(search, { pattern: `${field}=`, session: 'all' });
    if (last.result.isError) return final(`FAILED: ${last.name} returned an error: ${last.result.text.slice(0, 300)}`);
    if (last.name === search) {
      const lines = last.result.text.split('\n').map((line) => safeJson(line.slice(line.indexOf('{'))));
      const row = lines.find((line) => typeof line?.outputId === 'string');
      const match = lines.find((line) => typeof line?.lineOffset === 'number');
      if (!row || !match)
        return final(`FAILED: no output with a match in the search the model received: ${last.result.text.slice(0, 300)}`);
      return call(read, {
        outputId: row.outputId,
        ...(row.session ? { session: row.session } : {}),
        offset: match.lineOffset,
        maxBytes: 256,
      });
    }
    const value = new RegExp(`${field}=([0-9a-z]+)`).exec(last.result.text)?.[1];
    return final(value ? `The ${field} is ${value}.` : `FAILED: no ${field} in the page the model received`);
  };
}
