// From the two records of a run — what our server received and sent (tap.mjs) and what the CLI sent
// the model (model.mjs) — the facts the suite asserts and reports: did the server start and answer,
// which client it took the session for, which of our tools the model saw, and for each of our calls
// the bytes we sent against the bytes the model got, whether the client cut or altered them, and
// whether the evidence (status line, omission marker with its read call, outputId, last line)
// survived.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { isOurs } from './script.mjs';

const bytes = (text) => Buffer.byteLength(text, 'utf8');

function jsonLines(text) {
  const out = [];
  for (const line of text.split('\n')) {
    const start = line.indexOf('{');
    if (start < 0) continue;
    try {
      out.push(JSON.parse(line.slice(start)));
    } catch {
      // an SSE comment or a partial line
    }
  }
  return out;
}

/** One tap file as JSON-RPC messages in order: { t, dir: 'in' | 'out', msg }, when the process started, its argv and its stderr. */
export function readTap(file) {
  const entries = readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const start = entries.find((e) => e.kind === 'start');
  const messages = [];
  const pending = { stdin: '', stdout: '' };
  const http = new Map();
  let stderr = '';
  const cues = [];
  let exit;
  for (const e of entries) {
    if (e.kind === 'stderr') stderr += e.data;
    else if (e.kind === 'stop-cue') cues.push({ t: e.t, cue: e.cue });
    else if (e.kind === 'exit') exit ??= { t: e.t, by: e.by };
    else if (e.kind === 'stdin' || e.kind === 'stdout') {
      pending[e.kind] += e.data;
      const lines = pending[e.kind].split('\n');
      pending[e.kind] = lines.pop();
      for (const msg of jsonLines(lines.join('\n'))) messages.push({ t: e.t, dir: e.kind === 'stdin' ? 'in' : 'out', msg });
    } else if (e.kind === 'http-request') http.set(e.req, { t: e.t, body: '', out: '', auth: e.auth });
    else if (e.kind === 'http-in') http.get(e.req) && (http.get(e.req).body += e.data);
    else if (e.kind === 'http-out') http.get(e.req) && (http.get(e.req).out += e.data);
    else if (e.kind === 'http-end' && http.has(e.req)) {
      const req = http.get(e.req);
      for (const msg of jsonLines(req.body.replace(/^\[|\]$/g, ''))) messages.push({ t: req.t, dir: 'in', msg, auth: req.auth });
      for (const msg of jsonLines(req.out)) messages.push({ t: e.t, dir: 'out', msg });
    }
  }
  messages.sort((a, b) => a.t - b.t);
  return { file, pid: start?.pid, argv: start?.argv ?? [], spawnedAt: start?.spawnedAt, preloadAt: start?.t, messages, stderr, cues, exit };
}

/**
 * How one server process was stopped (tap.mjs records it): the cues in order as its event loop saw
 * them ("SIGINT, then SIGTERM +102 ms"), the ms from the first cue to its end, and whether it was killed
 * (no end recorded: SIGKILL, or a signal it does not handle). `signalledAt`: when the suite signalled
 * the client's process group (runGroup), if it did; a first cue after it is the suite's, not the client's.
 */
export function stopOf(tap, signalledAt) {
  if (!tap) return undefined;
  const [first, ...later] = tap.cues;
  const killed = !tap.exit;
  return {
    stoppedBy: first
      ? [first.cue, ...later.map((c) => `then ${c.cue} +${Math.round(c.t - first.t)} ms`)].join(', ')
      : killed
        ? 'no cue (killed)'
        : `no cue (${tap.exit.by})`,
    cued: !!first,
    exitMs: first && tap.exit ? Math.round(tap.exit.t - first.t) : undefined,
    exitBy: tap.exit?.by,
    killed,
    bySuite: !!first && signalledAt !== undefined && first.t >= signalledAt,
  };
}

export const readTaps = (dir) =>
  readdirSync(dir)
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => readTap(path.join(dir, name)));

/** The MCP conversation of one server process: who connected, when it answered, and every tools/call with its result. */
export function mcpExchange(tap) {
  const requests = new Map();
  const out = { initialize: undefined, handshake: [], clientInfo: undefined, clientFrom: undefined, toolsListed: undefined, calls: [] };
  for (const { t, dir, msg } of tap.messages) {
    if (dir === 'in' && msg.method) {
      requests.set(msg.id, { t, msg });
      if (msg.method === 'initialize' || msg.method === 'server/discover') out.handshake.push(msg.method);
      // 2026-07-28 clients send clientInfo in _meta (io.modelcontextprotocol/clientInfo); older ones in initialize.
      const meta = msg.params?._meta;
      const fromMeta = meta && Object.entries(meta).find(([key]) => /clientInfo$/i.test(key))?.[1];
      const info = msg.method === 'initialize' ? msg.params?.clientInfo : fromMeta;
      if (!out.clientInfo && info)
        [out.clientInfo, out.clientFrom] = [info, msg.method === 'initialize' ? 'initialize' : `${msg.method} _meta`];
      out.firstRequest ??= { t, method: msg.method };
    } else if (dir === 'out' && msg.id !== undefined && requests.has(msg.id)) {
      const request = requests.get(msg.id);
      const method = request.msg.method;
      if ((method === 'initialize' || method === 'server/discover') && !out.initialize)
        out.initialize = { method, sentAt: request.t, repliedAt: t, protocol: msg.result?.protocolVersion };
      if (method === 'tools/list')
        out.toolsListed ??= { at: t, askedAt: request.t, names: (msg.result?.tools ?? []).map((tool) => tool.name) };
      if (method === 'tools/call') {
        const content = msg.result?.content ?? [];
        out.calls.push({
          name: request.msg.params.name,
          args: request.msg.params.arguments,
          receivedAt: request.t,
          repliedAt: t,
          blocks: content.map((block) => block.text ?? ''),
          isError: msg.result?.isError === true || msg.error !== undefined,
        });
      }
    }
  }
  return out;
}

/**
 * The evidence a run_command result carries, found in the text the server sent: its status line, the
 * outputId, the omission marker with its read call, the line that names the notable (error) line the
 * preview omitted, and the output's last line. `output`: what the command printed that must show,
 * { notable, lastLine } (else the last line of the text counts as the output's).
 */
export function evidenceOf(sentText, output = {}) {
  const lines = sentText.split('\n');
  const outputId = /outputId "(out_[0-9a-z]+)"/.exec(sentText)?.[1];
  const marker = /\[\.\.\. \d+ bytes omitted: [^\n]*?read_tool_output \{"outputId":"out_[0-9a-z]+","offset":\d+\}/.exec(sentText)?.[0];
  const lastLine = output.lastLine ?? lines.filter((line) => line.trim() !== '').at(-1);
  // The notable line as the result names it (not the command line, which may quote it too).
  const notable = output.notable && lines.find((line) => line.includes(output.notable) && !line.startsWith('$ '));
  return {
    statusLine: lines[1],
    outputId: outputId && `outputId "${outputId}"`,
    marker,
    ...(output.notable ? { notable: notable ?? '' } : {}),
    // The last line as a line of its own (the command line above it may quote the same text).
    lastLine: lastLine && `\n${lastLine}`,
  };
}

/** How the text the model got differs from what we sent. */
export function compare(sentBlocks, receivedText) {
  const sent = sentBlocks.join('');
  if (receivedText === sent) return { verdict: 'unchanged' };
  if (receivedText.includes(sent)) return { verdict: `wrapped (+${bytes(receivedText) - bytes(sent)} B around it)` };
  const kept = sentBlocks.filter((block) => receivedText.includes(block)).length;
  // Gemini CLI wraps each block in a tag of its own (<untrusted_context>): every block there, in order.
  if (kept === sentBlocks.length && sentBlocks.length > 1) {
    const tag = /^<([\w-]+)>/.exec(receivedText)?.[1];
    return { verdict: `each block whole, ${tag ? `each in <${tag}>` : 'with text between'} (+${bytes(receivedText) - bytes(sent)} B)` };
  }
  const notes = [];
  const truncated = /…?\d+ tokens truncated…?/.exec(receivedText)?.[0];
  if (truncated) notes.push(`"${truncated}"`);
  const omitted = /\[omitted \d+ text items?[^\]]*\]/.exec(receivedText)?.[0];
  if (omitted) notes.push(`"${omitted}"`);
  if (/saved to|written to|too large/i.test(receivedText)) notes.push('saved to a file');
  return { verdict: `cut: ${kept} of ${sentBlocks.length} blocks whole${notes.length ? `; ${notes.join(', ')}` : ''}` };
}

/**
 * Pairs our server's calls with the results the model saw (in order, our tools only) from the last
 * main-loop request, and measures each.
 */
export function pairCalls(exchange, modelRequests) {
  const loop = modelRequests.filter((r) => r.view);
  const last = loop.at(-1)?.view;
  const seen = (last?.calls ?? []).filter((c) => isOurs(c.name));
  const asks = loop.filter((r) => r.turn?.kind === 'call' && isOurs(r.turn.name));
  return exchange.calls.map((call, index) => {
    const model = seen[index];
    const received = model?.result?.text ?? '';
    const sent = call.blocks.join('');
    // The request whose answer asked for this call, and the next one (it carried the result back).
    const ask = asks[index];
    const next = ask && loop[loop.indexOf(ask) + 1];
    const roundTripMs = next ? next.at - ask.at : undefined;
    return {
      tool: call.name,
      sentBytes: bytes(sent),
      sentBlocks: call.blocks.map(bytes),
      receivedBytes: model ? bytes(received) : undefined,
      receivedBlocks: model ? (model.result?.parts ?? []).map((part) => bytes(part.text ?? '')) : undefined,
      receivedLines: model ? received.split('\n').length : undefined,
      // Where the client sent the result JSON-encoded (Cline): the characters of that string, which its cut counts.
      receivedEncodedChars: model?.result?.encodedChars,
      ...compare(call.blocks, received),
      serverMs: Math.round(call.repliedAt - call.receivedAt),
      roundTripMs,
      sent,
      received,
      isError: call.isError,
    };
  });
}

/** Which pieces of evidence (evidenceOf the sent text) are in the received text. */
export function evidenceReceived(sentText, receivedText, output) {
  const evidence = evidenceOf(sentText, output);
  return Object.fromEntries(
    Object.entries(evidence).map(([key, value]) => [key, { expected: value, present: !!value && receivedText.includes(value) }]),
  );
}
