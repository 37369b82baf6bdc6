// Phases of SessionStore.search() over an 8 MiB copy vs the bench baseline (Buffer → string → regex).
// Run: node --import tsx bench/profile/searchPhases.mjs
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeLogText } from '../lib/logtext.mjs';
import { median } from '../lib/stats.mjs';
import { openStore } from '../../src/core/workers/stores.ts';
import { compileSearch, searchBytes } from '../../src/core/search/index.ts';
import { decodeUtf8 } from '../../src/core/utf8.ts';

const MiB = 1048576;
const FIELD = 'settlement_ref=ZX9-7F3A-END';
const bytes = makeLogText(8 * MiB, 100, [{ at: 0.985, line: `x ${FIELD} y` }]);
const dir = await fs.mkdtemp(path.join(tmpdir(), 'tor-search-'));
const store = await openStore({ dir, quotaBytes: 128 * MiB });
const { outputId } = await store.retain(bytes);
const row = store.lookup(outputId);
const compiled = compileSearch(outputId, FIELD, { maxMatches: 50 });
// The baseline's regex: the field as a literal JavaScript RegExp (the engine itself runs RE2 syntax).
const literalSource = FIELD.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const t = () => process.hrtime.bigint();
const ms = (s) => Number(process.hrtime.bigint() - s) / 1e6;
const r = {
  total: [],
  fetchInflate: [],
  textDecoder: [],
  bufToString: [],
  includesFFFD: [],
  regexGmi: [],
  regexGm: [],
  searchBytes: [],
  baseline: [],
  latin1Decode: [],
  latin1Regex: [],
  proposedTotal: [],
};
for (let rep = 0; rep < 12; rep++) {
  let s = t();
  await store.search(outputId, FIELD, { maxMatches: 50 });
  r.total.push(ms(s));
  s = t();
  const all = store.bytes(row, 0, row.total_bytes, false);
  r.fetchInflate.push(ms(s));
  s = t();
  const text = decodeUtf8(all);
  r.textDecoder.push(ms(s));
  s = t();
  const text2 = all.toString('utf8');
  r.bufToString.push(ms(s));
  s = t();
  text.includes('\uFFFD');
  r.includesFFFD.push(ms(s));
  for (const [key, flags] of [
    ['regexGmi', 'gmi'],
    ['regexGm', 'gm'],
  ]) {
    const re = new RegExp(literalSource, flags);
    s = t();
    let _matches = 0; // counted so the loop's work cannot be optimised away
    while (re.exec(text2)) _matches++;
    r[key].push(ms(s));
  }
  s = t();
  const l1 = all.latin1Slice(0, all.length);
  r.latin1Decode.push(ms(s));
  s = t();
  {
    const re = new RegExp(literalSource, 'gmi');
    while (re.exec(l1));
  }
  r.latin1Regex.push(ms(s));
  // Proposed: fetch + inflate, then an ASCII literal runs on the latin1 view (char index = byte offset).
  s = t();
  {
    const b = store.bytes(row, 0, row.total_bytes, false);
    const str = b.latin1Slice(0, b.length);
    const re = new RegExp(literalSource, 'gmi');
    while (re.exec(str));
  }
  r.proposedTotal.push(ms(s));
  s = t();
  searchBytes(all, compiled);
  r.searchBytes.push(ms(s));
  s = t();
  const re = new RegExp(literalSource, 'gmi');
  const str = bytes.toString('utf8');
  while (re.exec(str));
  r.baseline.push(ms(s));
}
console.log('medians (ms):', Object.fromEntries(Object.entries(r).map(([k, v]) => [k, +median(v).toFixed(1)])));
await store.close();
await fs.rm(dir, { recursive: true, force: true });
