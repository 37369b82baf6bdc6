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

/**
 * Starts the model. `decide(view)` returns `{ kind: 'call', name, input }` or `{ kind: 'final', text }`
 * for a main-loop request; `requests` holds every request as { at, url, body, view?, turn? }.
 */
export async function startModel(decide, { limitMs = 5 * 60_000 } = {}) {
  const requests = [];
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
    close: () =>
      new Promise((resolve) => {
        clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
