// Deterministic, realistic log-like text: ISO timestamps, levels, components, URL paths, file
// paths with line:col, durations, sizes, hex ids, stack frames, and some CJK and other non-ASCII.
// The same seed always gives the same bytes; different seeds give different content.

/** mulberry32: a tiny seeded PRNG returning floats in [0, 1). */
export function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LEVELS = ['INFO ', 'INFO ', 'INFO ', 'INFO ', 'DEBUG', 'DEBUG', 'WARN ', 'ERROR', 'TRACE'];
const COMPONENTS = ['http', 'worker-1', 'worker-2', 'worker-3', 'scheduler', 'db.pool', 'cache', 'build', 'test', 'auth', 'i18n', 'queue'];
const METHODS = ['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE', 'PATCH'];
const ROUTES = [
  '/api/v1/users/{n}/orders',
  '/api/v1/items/{n}',
  '/api/v2/search',
  '/healthz',
  '/static/js/chunk-{h}.js',
  '/api/v1/sessions/{h}',
  '/graphql',
  '/api/v1/reports/{n}/export',
];
const FILES = [
  'src/server/routes/orders.ts',
  'src/server/db/pool.ts',
  'src/components/Button.tsx',
  'src/components/checkout/CartSummary.tsx',
  'lib/utils/retry.js',
  'node_modules/pg/lib/client.js',
  'node_modules/express/lib/router/index.js',
  'test/unit/orders.test.ts',
  'packages/core/src/index.ts',
  'crates/parser/src/lexer.rs',
  'internal/api/handler.go',
  'app/models/user.py',
];
const ERRORS = [
  'ECONNRESET',
  'ETIMEDOUT',
  'EADDRINUSE',
  'ENOENT',
  'deadlock detected',
  'unique constraint violated',
  "TypeError: Cannot read properties of undefined (reading 'id')",
];
const CJK = [
  '翻訳が見つかりません',
  '用户登录成功',
  '数据库连接已关闭',
  '요청이 시간 초과되었습니다',
  '缓存未命中，正在重新加载',
  'ファイルを保存しました',
  'Überprüfung fehlgeschlagen',
  'échec de la connexion',
  'Время ожидания истекло',
  '✓ 通过',
  '✗ 失败',
];
const USERS = ['alice', 'bob', 'carol', 'dmitri', '李雷', 'さくら', 'eve', 'mallory'];

export function makeLogLine(rand, clock) {
  const pick = (list) => list[Math.floor(rand() * list.length)];
  const int = (n) => Math.floor(rand() * n);
  const hex = (len) => {
    let s = '';
    while (s.length < len)
      s += Math.floor(rand() * 0x100000000)
        .toString(16)
        .padStart(8, '0');
    return s.slice(0, len);
  };
  clock.t += int(40);
  const ts = new Date(clock.t).toISOString();
  const level = pick(LEVELS);
  const comp = pick(COMPONENTS);
  const head = `${ts} ${level} [${comp}] `;
  switch (int(9)) {
    case 0:
    case 1:
    case 2: {
      const route = pick(ROUTES)
        .replace('{n}', String(int(100000)))
        .replace('{h}', hex(12));
      return `${head}${pick(METHODS)} ${route} ${pick([200, 200, 200, 201, 204, 304, 400, 404, 500])} ${(rand() * 250).toFixed(1)}ms bytes=${int(200000)} req=${hex(8)} user=${pick(USERS)}`;
    }
    case 3:
      return `${head}retrying job ${int(10000)} (attempt ${1 + int(5)}/5): ${pick(ERRORS)} at /srv/app/${pick(FILES)}:${1 + int(900)}:${1 + int(80)}`;
    case 4:
      return `${head}compiled ${pick(FILES)} in ${int(900)}ms (size ${(rand() * 300).toFixed(1)} kB, hash ${hex(16)})`;
    case 5:
      return `${head}${pick(CJK)}: key=${pick(['checkout.total', 'cart.empty', 'user.greeting', 'error.network'])} locale=${pick(['ja-JP', 'zh-CN', 'ko-KR', 'de-DE', 'fr-FR', 'ru-RU'])} count=${int(1000)}`;
    case 6:
      return `${head}pool stats: total=${int(64)} idle=${int(32)} waiting=${int(16)} p99=${(rand() * 80).toFixed(2)}ms cache_hit=${(rand() * 100).toFixed(1)}%`;
    case 7: {
      const frames = 1 + int(4);
      const lines = [`${head}Unhandled ${pick(ERRORS)} while processing task ${hex(8)}`];
      for (let i = 0; i < frames; i++)
        lines.push(
          `    at ${pick(['Object.<anonymous>', 'processTicksAndRejections', 'Client._handleErrorMessage', 'Router.handle', 'async Promise.all'])} (/home/ci/work/${pick(FILES)}:${1 + int(900)}:${1 + int(80)})`,
        );
      return lines.join('\n');
    }
    default:
      return `${head}test ${pick(['✓', '✓', '✓', '✗'])} ${pick(CJK)} should ${pick(['reject a bad password', 'render the cart total', 'retry on timeout', 'parse nested arrays'])} (${int(300)} ms)`;
  }
}

/**
 * Exactly `bytes` bytes of log-like UTF-8 text made of whole lines (the last line is padded with
 * ASCII to land on the exact size). `insert` places given lines at fractional positions (0..1).
 */
export function makeLogText(bytes, seed, insert = []) {
  const rand = prng(seed);
  const clock = { t: Date.UTC(2024, 4, 17, 8, 0, 0) + seed * 86400000 };
  const parts = [];
  let size = 0;
  const pending = [...insert].sort((a, b) => a.at - b.at);
  for (;;) {
    let line;
    if (pending.length > 0 && size >= pending[0].at * bytes) line = pending.shift().line;
    else line = makeLogLine(rand, clock);
    const length = Buffer.byteLength(line, 'utf8') + 1;
    if (size + length > bytes - 64) break;
    parts.push(line);
    size += length;
  }
  const padLength = bytes - size - 1;
  parts.push(`${new Date(clock.t).toISOString()} INFO  [bench] end`.padEnd(padLength, '.'));
  const buffer = Buffer.from(`${parts.join('\n')}\n`, 'utf8');
  if (buffer.length !== bytes) throw new Error(`generated ${buffer.length} bytes, wanted ${bytes}`);
  return buffer;
}

/** Byte offsets of every line start in `buffer` (all are UTF-8 character boundaries). */
export function lineStarts(buffer) {
  const starts = [0];
  for (let at = buffer.indexOf(0x0a); at >= 0 && at + 1 < buffer.length; at = buffer.indexOf(0x0a, at + 1)) starts.push(at + 1);
  return starts;
}
