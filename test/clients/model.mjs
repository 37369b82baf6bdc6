// A scripted model on 127.0.0.1 for the real agent CLIs: it speaks the Anthropic Messages API with
// SSE (Claude Code: POST /v1/messages) and the OpenAI Responses API with SSE (Codex: POST
// /v1/responses), records every request body with its arrival time, and answers each turn with what
// `decide` (script.mjs) makes of the conversation the CLI actually sent: the wire formats are here,
// the decisions there. Requests that are not the agent's main loop (Claude Code's side requests
// without tools, e.g. a title) get a short text. The server closes itself after `limitMs`, so a CLI
// that keeps asking cannot hold a test.
import http from 'node:http';
import { scaled } from './clients.mjs';

/**
 * Normalizes a Messages API request into the script's view: the tools the model may call now, the
 * tool-search tool if any, and every tool call with its result in order.
 */
export function anthropicView(body) {
  const tools = new Map((body.tools ?? []).map((tool) => [tool.name, tool]));
  const calls = [];
  const byId = new Map();
  const referenced = new Set();
  for (const message of body.messages ?? []) {
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content) {
      if (block.type === 'tool_use') {
        const call = { id: block.id, name: block.name, input: block.input, result: undefined };
        byId.set(block.id, call);
        calls.push(call);
      } else if (block.type === 'tool_result') {
        const parts = typeof block.content === 'string' ? [{ type: 'text', text: block.content }] : (block.content ?? []);
        for (const part of parts) if (part.type === 'tool_reference') referenced.add(part.tool_name);
        const call = byId.get(block.tool_use_id);
        if (call) call.result = { parts, text: textOf(parts), isError: block.is_error === true };
      }
    }
  }
  // A deferred tool (defer_loading) is callable once a tool search returned a reference to it.
  const callable = [...tools.values()].filter((tool) => !tool.defer_loading || referenced.has(tool.name)).map((tool) => tool.name);
  const deferred = [...tools.values()].filter((tool) => tool.defer_loading && !referenced.has(tool.name)).map((tool) => tool.name);
  return { api: 'anthropic', callable, deferred, toolSearch: tools.has('ToolSearch') ? 'ToolSearch' : undefined, calls, body };
}

/** The same view of a Responses API request (Codex): function tools, namespaces, tool_search and their outputs. */
export function responsesView(body) {
  const callable = [];
  const addTools = (list, namespace) => {
    for (const tool of list ?? []) {
      if (tool.type === 'function') callable.push(namespace ? `${namespace}.${tool.name}` : tool.name);
      else if (tool.type === 'namespace') addTools(tool.tools, tool.name);
    }
  };
  addTools(body.tools);
  const calls = [];
  const byId = new Map();
  for (const item of body.input ?? []) {
    if (item.type === 'function_call' || item.type === 'tool_search_call') {
      const name = item.type === 'tool_search_call' ? 'tool_search' : item.namespace ? `${item.namespace}.${item.name}` : item.name;
      const input = item.type === 'tool_search_call' ? item.arguments : safeJson(item.arguments);
      const call = { id: item.call_id, name, input, result: undefined };
      byId.set(item.call_id, call);
      calls.push(call);
    } else if (item.type === 'function_call_output') {
      const parts = typeof item.output === 'string' ? [{ type: 'text', text: item.output }] : (item.output ?? []);
      const call = byId.get(item.call_id);
      if (call) call.result = { parts, text: textOf(parts), isError: false };
    } else if (item.type === 'tool_search_output') {
      addTools(item.tools);
      const call = byId.get(item.call_id);
      if (call) call.result = { parts: [], text: JSON.stringify(item.tools ?? []), isError: false };
    }
  }
  const toolSearch = (body.tools ?? []).some((tool) => tool.type === 'tool_search') ? 'tool_search' : undefined;
  return { api: 'responses', callable, deferred: [], toolSearch, calls, body };
}

/**
 * The same view of a Gemini API request (Gemini CLI: POST /v1beta/models/<model>:streamGenerateContent?alt=sse):
 * functionDeclarations, and each model functionCall paired with the next functionResponse of its id (or name).
 */
export function geminiView(body) {
  const callable = (body.tools ?? []).flatMap((tool) => (tool.functionDeclarations ?? []).map((fn) => fn.name));
  const calls = [];
  for (const content of body.contents ?? []) {
    for (const part of content.parts ?? []) {
      if (part.functionCall)
        calls.push({ id: part.functionCall.id, name: part.functionCall.name, input: part.functionCall.args ?? {}, result: undefined });
      else if (part.functionResponse) {
        const { id, name, response } = part.functionResponse;
        const call =
          calls.find((c) => !c.result && (id ? c.id === id : c.name === name)) ?? calls.find((c) => !c.result && c.name === name);
        if (call) {
          const parts = geminiResponseParts(response, part.functionResponse.parts);
          call.result = { parts, text: textOf(parts), isError: response?.error !== undefined };
        }
      }
    }
  }
  return { api: 'gemini', callable, deferred: [], toolSearch: undefined, calls, body };
}

/** The texts of a functionResponse, in order: `output` (a string), `content` (MCP blocks), `error`, else the response as JSON. */
function geminiResponseParts(response, extra) {
  const parts = [];
  if (typeof response?.output === 'string') parts.push({ type: 'text', text: response.output });
  else if (Array.isArray(response?.content)) for (const block of response.content) parts.push({ type: 'text', text: block.text ?? '' });
  else if (response?.error !== undefined)
    parts.push({ type: 'text', text: typeof response.error === 'string' ? response.error : JSON.stringify(response.error) });
  else if (response !== undefined) parts.push({ type: 'text', text: JSON.stringify(response) });
  for (const part of extra ?? []) if (typeof part.text === 'string') parts.push({ type: 'text', text: part.text });
  return parts;
}

/**
 * The same view of an OpenAI chat-completions request (Qwen Code, Copilot CLI's `openai` provider: POST
 * /v1/chat/completions): function tools, assistant tool_calls and the tool messages answering them.
 * A client that defers MCP tools behind a search and a bridge (Qwen Code: tool_search, then
 * tool_call {name, arguments}) has its bridged calls shown as calls of the tool they name, and the
 * tools a search returned as callable through the bridge (`via`).
 */
export function chatView(body) {
  const declared = (body.tools ?? []).filter((tool) => tool.type === 'function').map((tool) => tool.function.name);
  const bridge = declared.includes('tool_call') ? 'tool_call' : undefined;
  const toolSearch = declared.includes('tool_search') ? 'tool_search' : undefined;
  const calls = [];
  const byId = new Map();
  const via = new Map();
  const texts = [];
  for (const message of body.messages ?? []) {
    if (message.role === 'assistant') {
      for (const toolCall of message.tool_calls ?? []) {
        let name = toolCall.function?.name;
        let input = safeJson(toolCall.function?.arguments ?? '');
        let bridged;
        if (name === bridge && typeof input?.name === 'string') [bridged, name, input] = [bridge, input.name, input.arguments ?? {}];
        const call = { id: toolCall.id, name, input, via: bridged, result: undefined };
        byId.set(toolCall.id, call);
        calls.push(call);
      }
    } else if (message.role === 'tool') {
      const parts =
        typeof message.content === 'string'
          ? (mcpEncoded(message.content) ?? [{ type: 'text', text: message.content }])
          : (message.content ?? []);
      const call = byId.get(message.tool_call_id);
      // `encoded`: the characters of the string as sent, where a client sends the MCP result JSON-encoded (Cline cuts that string).
      if (call)
        call.result = {
          parts,
          text: textOf(parts),
          isError: false,
          encodedChars: typeof message.content === 'string' ? message.content.length : undefined,
        };
    }
    if (message.role !== 'tool' && message.role !== 'assistant')
      texts.push(typeof message.content === 'string' ? message.content : textOf(message.content ?? []));
  }
  // Deferred tools: named in the client's reminder (a user or system message); callable through the bridge once a search returned their schema.
  const deferred = [...new Set(texts.join('\n').match(/\bmcp__[\w-]+?__\w+/g) ?? [])].filter((name) => !declared.includes(name));
  const searched = calls
    .filter((c) => c.name === toolSearch && c.result)
    .map((c) => c.result.text)
    .join('\n');
  if (bridge) for (const name of deferred) if (searched.includes(name)) via.set(name, bridge);
  const callable = [...declared, ...via.keys()];
  return { api: 'chat', callable, deferred: deferred.filter((name) => !via.has(name)), toolSearch, via, calls, body };
}

/**
 * The text blocks of an MCP result a client sends JSON-encoded as the tool message (Cline:
 * `{"content":[{"type":"text","text":…}]}`), or undefined for any other text (a cut encoding no longer parses).
 */
function mcpEncoded(content) {
  if (!content.startsWith('{"content":[')) return undefined;
  const value = safeJson(content);
  return Array.isArray(value?.content) && value.content.every((block) => typeof block?.text === 'string')
    ? value.content.map((block) => ({ type: 'text', text: block.text }))
    : undefined;
}

const textOf = (parts) =>
  parts
    .map((part) => (typeof part === 'string' ? part : (part.text ?? '')))
    .filter((text) => text !== '')
    .join('');

function safeJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A side request that asks for JSON (Gemini CLI's router asks for a complexity score) gets a small valid object. */
function sideAnswer(body) {
  if (body.generationConfig?.responseMimeType !== 'application/json') return 'ok';
  return JSON.stringify({ complexity_reasoning: 'scripted', complexity_score: 10, reasoning: 'scripted', next_speaker: 'user' });
}

const sse = (res, event, data) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);

function anthropicReply(res, turn, n) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const usage = { input_tokens: 10, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
  sse(res, 'message_start', {
    type: 'message_start',
    message: {
      id: `msg_${n}`,
      type: 'message',
      role: 'assistant',
      model: 'scripted',
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage,
    },
  });
  if (turn.kind === 'call') {
    const block = { type: 'tool_use', id: `toolu_scripted_${n}`, name: turn.name, input: {} };
    sse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: block });
    const json = JSON.stringify(turn.input);
    sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: json } });
  } else {
    sse(res, 'content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
    sse(res, 'content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: turn.text } });
  }
  sse(res, 'content_block_stop', { type: 'content_block_stop', index: 0 });
  const stop = turn.kind === 'call' ? 'tool_use' : 'end_turn';
  sse(res, 'message_delta', { type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 1 } });
  sse(res, 'message_stop', { type: 'message_stop' });
  res.end();
}

function responsesReply(res, turn, n) {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const id = `resp_${n}`;
  sse(res, 'response.created', { type: 'response.created', response: { id } });
  let item;
  if (turn.kind === 'call' && turn.name === 'tool_search') {
    item = { type: 'tool_search_call', call_id: `search_${n}`, execution: 'client', status: 'completed', arguments: turn.input };
  } else if (turn.kind === 'call') {
    const dot = turn.name.lastIndexOf('.');
    const [namespace, name] = dot < 0 ? [undefined, turn.name] : [turn.name.slice(0, dot), turn.name.slice(dot + 1)];
    item = {
      type: 'function_call',
      id: `fc_${n}`,
      call_id: `call_${n}`,
      name,
      ...(namespace ? { namespace } : {}),
      arguments: JSON.stringify(turn.input),
    };
  } else {
    item = { type: 'message', role: 'assistant', id: `msg_${n}`, content: [{ type: 'output_text', text: turn.text }] };
  }
  sse(res, 'response.output_item.done', { type: 'response.output_item.done', output_index: 0, item });
  const usage = { input_tokens: 10, input_tokens_details: null, output_tokens: 1, output_tokens_details: null, total_tokens: 11 };
  sse(res, 'response.completed', { type: 'response.completed', response: { id, usage } });
  res.end();
}

/** One Gemini API response chunk (a whole candidate; the CLI reads the stream as a list of them). */
function geminiChunk(turn, n) {
  const part = turn.kind === 'call' ? { functionCall: { name: turn.name, args: turn.input } } : { text: turn.text };
  return {
    candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 1, totalTokenCount: 11 },
    modelVersion: 'scripted',
    responseId: `gemini_${n}`,
  };
}

/** streamGenerateContent?alt=sse: `data: <chunk>` events; generateContent: the chunk as JSON. */
function geminiReply(res, turn, n, stream) {
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end(JSON.stringify(geminiChunk(turn, n)));
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.write(`data: ${JSON.stringify(geminiChunk(turn, n))}\r\n\r\n`);
  res.end();
}

/** Cline's tool that ends a turn. */
const SUBMIT = 'submit_and_exit';

/** Chat completions: SSE chunks ending in `data: [DONE]` when the request streams, else one chat.completion. A bridged tool is called through its bridge. */
function chatReply(res, turn, n, { stream, via, finishTool }) {
  // A client whose turn ends only with a tool of its own (Cline's submit_and_exit, a summary of at least 10 characters) gets the final text through it.
  if (turn.kind === 'final' && finishTool)
    turn = { kind: 'call', name: finishTool, input: { summary: turn.text.padEnd(10, '.'), verified: true } };
  const bridge = turn.kind === 'call' ? via?.get(turn.name) : undefined;
  const [name, input] = bridge ? [bridge, { name: turn.name, arguments: turn.input }] : [turn.name, turn.input];
  const toolCalls =
    turn.kind === 'call'
      ? [{ index: 0, id: `call_${n}`, type: 'function', function: { name, arguments: JSON.stringify(input) } }]
      : undefined;
  const finish = turn.kind === 'call' ? 'tool_calls' : 'stop';
  const usage = { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 };
  const base = { id: `chatcmpl_${n}`, created: Math.floor(Date.now() / 1000), model: 'scripted' };
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const message = {
      role: 'assistant',
      content: turn.kind === 'call' ? null : turn.text,
      ...(toolCalls ? { tool_calls: toolCalls } : {}),
    };
    return res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: finish }], usage }));
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const chunk = (choice, extra = {}) =>
    res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: choice ? [choice] : [], ...extra })}\n\n`);
  const delta =
    turn.kind === 'call' ? { role: 'assistant', content: null, tool_calls: toolCalls } : { role: 'assistant', content: turn.text };
  chunk({ index: 0, delta, finish_reason: null });
  chunk({ index: 0, delta: {}, finish_reason: finish });
  chunk(undefined, { usage });
  res.write('data: [DONE]\n\n');
  res.end();
}

/**
 * Starts the model. `decide(view)` returns `{ kind: 'call', name, input }` or `{ kind: 'final', text }`
 * for a main-loop request; `requests` holds every request as { at, url, body, view?, turn? };
 * `firstLoopAnswered` resolves once the first main-loop request has been answered.
 */
export async function startModel(decide, { limitMs = 5 * 60_000 } = {}) {
  const requests = [];
  // Resolves when the first main-loop request has been answered (the start-up race needs no more of a run).
  let answeredLoop;
  const firstLoopAnswered = new Promise((resolve) => (answeredLoop = resolve));
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const at = Date.now();
      const raw = Buffer.concat(chunks).toString('utf8');
      let body;
      try {
        body = JSON.parse(raw);
      } catch {
        body = undefined;
      }
      const record = { at, method: req.method, url: req.url, bytes: raw.length, body };
      requests.push(record);
      res.once('finish', () => record.view && record.turn && answeredLoop());
      const n = requests.length;
      const url = req.url ?? '';
      try {
        if (req.method === 'POST' && url.startsWith('/v1/messages') && !url.startsWith('/v1/messages/count_tokens') && body) {
          record.view = anthropicView(body);
          // Side requests (no tools: titles, summaries) are not the agent's loop.
          record.turn = record.view.toolSearch || record.view.callable.length ? decide(record.view) : { kind: 'final', text: 'ok' };
          return anthropicReply(res, record.turn, n);
        }
        if (req.method === 'POST' && url.startsWith('/v1/responses') && body) {
          record.view = responsesView(body);
          record.turn = decide(record.view);
          return responsesReply(res, record.turn, n);
        }
        // Gemini API: the main loop streams; side requests (Gemini CLI's model router, next-speaker checks) do not and carry no tools.
        const gemini = /^\/v1(?:beta)?\/models\/[^:/]+:(streamGenerateContent|generateContent)/.exec(url);
        if (req.method === 'POST' && gemini && body) {
          record.view = geminiView(body);
          const loop = record.view.callable.length > 0;
          record.turn = loop ? decide(record.view) : { kind: 'final', text: sideAnswer(body) };
          if (!loop) delete record.view;
          return geminiReply(res, record.turn, n, gemini[1] === 'streamGenerateContent');
        }
        if (req.method === 'POST' && /^\/v1(?:beta)?\/models\/[^:/]+:countTokens/.test(url)) {
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ totalTokens: 10 }));
        }
        if (req.method === 'POST' && url.startsWith('/v1/chat/completions') && body) {
          record.view = chatView(body);
          const loop = record.view.callable.length > 0;
          record.turn = loop ? decide(record.view) : { kind: 'final', text: 'ok' };
          if (!loop) delete record.view;
          const finishTool = record.view?.callable.includes(SUBMIT) ? SUBMIT : undefined;
          return chatReply(res, record.turn, n, { stream: body.stream === true, via: record.view?.via, finishTool });
        }
        if (url.startsWith('/v1/messages/count_tokens')) {
          res.writeHead(200, { 'content-type': 'application/json' });
          return res.end(JSON.stringify({ input_tokens: 10 }));
        }
      } catch (error) {
        record.error = String(error?.stack ?? error);
        res.writeHead(500, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: record.error } }));
      }
      // Anything else (model lists, plugin syncs): nothing here, answered at once so nobody waits.
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const timer = setTimeout(() => server.close(), scaled(limitMs)).unref(); // ×TEST_TIME_SCALE, like every limit of this suite
  return {
    port: server.address().port,
    requests,
    firstLoopAnswered,
    close: () =>
      new Promise((resolve) => {
        clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
