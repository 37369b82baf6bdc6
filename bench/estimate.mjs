// How far the chars/token estimates of the history budgets are from a real tokenizer, on real text,
// and what counting with a tokenizer costs. gpt-tokenizer (o200k_base, GPT-4o's encoding) stands in
// for a model's own counter; VS Code's `countTokens` is an async call per text, usually remote.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { execSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const { history } = await import(path.join(root, 'dist/core.js'));

const walk = (dir) =>
  readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    return statSync(file).isDirectory() ? walk(file) : [file];
  });
const samples = {
  'TypeScript source (src/core)': walk(path.join(root, 'src/core'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n'),
  'command output (ls -lR node_modules/typescript)': execSync('ls -lR node_modules/typescript', {
    cwd: root,
    maxBuffer: 64 << 20,
  }).toString(),
  'JSON (package-lock.json)': readFileSync(path.join(root, 'package-lock.json'), 'utf8'),
  'English prose (docs/agents.md)': readFileSync(path.join(root, 'docs/agents.md'), 'utf8'),
  // Written for the bench (technical prose with inline code, like the Chinese a tool result or a
  // chat turn carries), so a fresh clone has every sample.
  'Chinese prose (fixtures/zh-prose.md)': readFileSync(path.join(root, 'bench/fixtures/zh-prose.md'), 'utf8'),
};

const rows = [];
for (const [name, text] of Object.entries(samples)) {
  const started = performance.now();
  const tokens = encode(text).length;
  const tokenizerMs = performance.now() - started;
  const asResult = await history.charEstimator().countTokens(text, 'toolResult');
  const asOther = await history.charEstimator().countTokens(text, 'other');
  rows.push({ name, chars: text.length, tokens, charsPerToken: text.length / tokens, asResult, asOther, tokenizerMs });
}

const pad = (value, width) => String(value).padStart(width);
console.log('sample                                   chars     tokens  chars/token  est@2 (tool result)  est@4 (other text)  tokenizer');
for (const r of rows) {
  const err = (estimate) => `${estimate > r.tokens ? '+' : ''}${(((estimate - r.tokens) / r.tokens) * 100).toFixed(0)}%`;
  console.log(
    `${r.name.padEnd(38)} ${pad(r.chars, 8)} ${pad(r.tokens, 9)} ${pad(r.charsPerToken.toFixed(2), 11)}  ${pad(`${r.asResult} (${err(r.asResult)})`, 19)}  ${pad(`${r.asOther} (${err(r.asOther)})`, 18)}  ${pad(r.tokenizerMs.toFixed(1), 6)} ms`,
  );
}
console.log('\n+ means the estimate is above the real count (safe: the guard replaces results a little early);');
console.log('- means below (the request may be larger than the guard thinks).');
