// The evidence bench's scenarios (bench/evidence.mjs): generated outputs, each with a question an
// agent must answer, the search term it would use, and how to tell the evidence when it sees it.
//
// A scenario's `build(dir)` writes its files and returns the shell command that prints the output
// (stdout and stderr in a fixed order) and that output as one string, merged in the same order
// (what a harness without capture caps would cut). `evidence(text)` says whether a text the agent
// read settles the question. `kind`: 'fact' (a line to find), 'absence' (the answer is a verdict:
// not there, or cannot tell). `retained`: the fact is in the retained copy (the goal of one call at
// most applies).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeLogText, prng } from './logtext.mjs';

const MiB = 1024 * 1024;

/** A quiet service log: INFO lines, a warning now and then (1 in 400), `special` lines by number. */
function quietLog(count, seed, special = {}) {
  const rand = prng(seed);
  const routes = ['/api/v1/users', '/api/v1/orders', '/api/v2/search', '/healthz', '/api/v1/items'];
  const lines = new Array(count);
  for (let i = 1; i <= count; i++) {
    const ms = Math.floor(rand() * 900);
    const t = `2024-05-18T${String(8 + (Math.floor(i / 100000) % 10)).padStart(2, '0')}:${String(Math.floor(i / 1000) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}Z`;
    lines[i - 1] =
      special[i] ??
      (rand() < 0.0025
        ? `${t} WARN  [pool] slow query took ${ms} ms`
        : `${t} INFO  [http] GET ${routes[Math.floor(rand() * routes.length)]}/${Math.floor(rand() * 9999)} 200 in ${ms} ms`);
  }
  return lines;
}

/** A Chinese service log: the same shape, Chinese messages, no English keyword. */
function chineseLog(count, seed, special = {}) {
  const rand = prng(seed);
  const messages = ['用户登录成功', '订单已创建', '缓存已刷新', '数据同步完成', '请求处理完毕'];
  const lines = new Array(count);
  for (let i = 1; i <= count; i++) {
    lines[i - 1] =
      special[i] ??
      `2024-05-18 10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')} 信息 [服务] ${messages[Math.floor(rand() * messages.length)]}，耗时 ${Math.floor(rand() * 900)} 毫秒`;
  }
  return lines;
}

const text = (lines) => `${lines.join('\n')}\n`;

/** Writes `parts` ([stream, text] in order) and returns the command printing them, then `exit`. */
function printing(dir, name, parts, { exit = 0, after = '' } = {}) {
  const steps = parts.map(([stream, content], i) => {
    const file = path.join(dir, `${name}.${i}.txt`);
    writeFileSync(file, content);
    return `cat '${file}'${stream === 'stderr' ? ' >&2' : ''}`;
  });
  return {
    command: [...steps, ...(after ? [after] : []), `exit ${exit}`].join('; '),
    output: parts.map(([, content]) => content).join(''),
  };
}

const has = (needle) => (t) => t.includes(needle);

export const SCENARIOS = [
  {
    name: 'field at the end',
    question: 'What is the settlement reference of the last batch?',
    term: 'settlement_ref',
    kind: 'fact',
    retained: true,
    evidence: has('ZX9-7F3A-END'),
    build: (dir) =>
      printing(dir, 'tail', [
        [
          'stdout',
          text([...quietLog(20000, 1), '2024-05-18 INFO [billing] closing batch 9931 settlement_ref=ZX9-7F3A-END total=48213.07']),
        ],
      ]),
  },
  {
    name: 'field at the start',
    question: 'Which version ran?',
    term: 'version',
    kind: 'fact',
    retained: true,
    evidence: has('3.7.14'),
    build: (dir) => printing(dir, 'head', [['stdout', text(['starting worker', 'version: 3.7.14 (build 5521)', ...quietLog(20000, 2)])]]),
  },
  {
    name: 'compile error in the middle',
    question: 'Why did the build fail?',
    term: 'error TS',
    kind: 'fact',
    retained: true,
    evidence: has("TS2322: Type 'string' is not assignable to type 'Cents'"),
    build: (dir) =>
      printing(
        dir,
        'tsc',
        [
          [
            'stdout',
            text(
              quietLog(40000, 3, { 21000: "src/billing/ledger.ts(88,13): error TS2322: Type 'string' is not assignable to type 'Cents'." }),
            ),
          ],
        ],
        { exit: 2 },
      ),
  },
  {
    name: 'repeated error, how often',
    question: 'How many times did the database connection fail?',
    term: 'ECONNREFUSED',
    searchOptions: { maxMatches: 1000 },
    kind: 'fact',
    retained: true,
    evidence: (t) => /×300\b/.test(t) || /"matches":300,/.test(t),
    build: (dir) => {
      const special = {};
      for (let k = 0; k < 300; k++)
        special[10000 + k * 60] = `2024-05-18T09:00:00Z ERROR [db] connect ECONNREFUSED 10.0.0.5:5432 (attempt ${k + 1})`;
      return printing(dir, 'repeat', [['stdout', text(quietLog(40000, 4, special))]], { exit: 1 });
    },
  },
  {
    name: 'stderr cause behind stdout',
    question: 'Why did the command fail?',
    term: 'fatal',
    kind: 'fact',
    retained: true,
    evidence: has('config file /etc/app.toml not found'),
    build: (dir) => {
      const compiling = (from, n) => Array.from({ length: n }, (_, i) => `compiling module ${from + i} of 400000 ... ok`);
      return printing(
        dir,
        'stderr',
        [
          ['stdout', text(compiling(1, 60000))],
          ['stderr', 'fatal: config file /etc/app.toml not found\n'],
          ['stdout', text(compiling(60001, 60000))],
        ],
        { exit: 1 },
      );
    },
  },
  {
    name: 'traceback at the end',
    question: 'What exception ended the script?',
    term: 'Error',
    kind: 'fact',
    retained: true,
    evidence: has("ValueError: invalid literal for int() with base 10: 'abc'"),
    build: (dir) =>
      printing(
        dir,
        'trace',
        [
          ['stdout', text(quietLog(30000, 5))],
          [
            'stderr',
            'Traceback (most recent call last):\n  File "etl.py", line 41, in <module>\n    n = int(row[3])\nValueError: invalid literal for int() with base 10: \'abc\'\n',
          ],
        ],
        { exit: 1 },
      ),
  },
  {
    name: 'error beyond the 8 MiB cap',
    question: 'Did the job hit any error?',
    term: 'error',
    kind: 'fact',
    retained: false,
    evidence: has('disk quota exceeded on /var/data'),
    build: (dir) =>
      printing(dir, 'cap', [['stdout', text(quietLog(420000, 6, { 190233: 'error: disk quota exceeded on /var/data (shard 7)' }))]]),
  },
  {
    name: 'CJK error in the middle',
    question: '服务为什么报错？',
    term: '错误',
    kind: 'fact',
    retained: true,
    evidence: has('连接被拒绝'),
    build: (dir) =>
      printing(dir, 'cjkerr', [
        ['stdout', text(chineseLog(30000, 7, { 15000: '2024-05-18 10:15:00 错误 [数据库] 连接被拒绝 (主机 10.0.0.5)' }))],
      ]),
  },
  {
    name: 'CJK field in the middle',
    question: '结算编号是多少？',
    term: '结算编号',
    kind: 'fact',
    retained: true,
    evidence: has('ZX9-结-7F3A'),
    build: (dir) =>
      printing(dir, 'cjkfield', [
        ['stdout', text(chineseLog(30000, 8, { 14000: '2024-05-18 10:14:00 信息 [账单] 结算编号=ZX9-结-7F3A 金额=48213.07' }))],
      ]),
  },
  {
    name: 'one long JSON line, key in the middle',
    question: 'What is the total amount?',
    term: 'total_amount',
    kind: 'fact',
    retained: true,
    evidence: has('"total_amount":48213.07'),
    build: (dir) => {
      const records = (from) =>
        Array.from({ length: 12000 }, (_, i) => ({
          id: from + i,
          name: `user ${from + i}`,
          status: 'active',
          amount: ((from + i) * 7) % 1000,
        }));
      const json = JSON.stringify({ records: records(0), summary: { total_amount: 48213.07, currency: 'EUR' }, archived: records(12000) });
      return printing(dir, 'jsonline', [['stdout', `${json}\n`]]);
    },
  },
  {
    name: 'JSON summary keys in the middle',
    question: 'How many checks failed?',
    term: 'failed',
    kind: 'fact',
    retained: true,
    evidence: has('"failed": 2'),
    build: (dir) => {
      const items = (from) => Array.from({ length: 9000 }, (_, i) => ({ name: `check-${from + i}`, ok: true, ms: (from + i) % 97 }));
      const json = JSON.stringify({ items: items(0), summary: { failed: 2, passed: 17998 }, more: items(9000) }, null, 2);
      return printing(dir, 'jsonpretty', [['stdout', `${json}\n`]]);
    },
  },
  {
    name: 'test summary before a coverage report',
    question: 'How many tests failed?',
    term: 'Tests:',
    kind: 'fact',
    retained: true,
    evidence: has('Tests: 3 failed, 1197 passed, 1200 total'),
    build: (dir) => {
      const tests = Array.from({ length: 1200 }, (_, i) => `  ✓ case ${i + 1} handles input ${i} (${i % 9} ms)`);
      const coverage = Array.from(
        { length: 30000 },
        (_, i) => `src/module${i}.ts | ${(i * 7) % 100}.00 | ${(i * 3) % 100}.00 | ${(i * 11) % 100}.00 |`,
      );
      return printing(dir, 'tests', [['stdout', text([...tests, 'Tests: 3 failed, 1197 passed, 1200 total', ...coverage])]], { exit: 1 });
    },
  },
  {
    name: 'plain field in the middle',
    question: 'What is the config digest?',
    term: 'config_digest',
    kind: 'fact',
    retained: true,
    evidence: has('config_digest=9f3a77c1'),
    build: (dir) =>
      printing(dir, 'plain', [['stdout', text(quietLog(20000, 9, { 9000: '2024-05-18 INFO [boot] config_digest=9f3a77c1 loaded' }))]]),
  },
  {
    name: 'value far along a long line',
    question: 'What is the artifact sha256?',
    term: 'artifact manifest',
    kind: 'fact',
    retained: true,
    evidence: has('sha256=5d41402abc4b2a76'),
    build: (dir) => {
      const line = `artifact manifest: name=core-lib path=/srv/build/${'segment/'.repeat(36)}core-lib.tgz sha256=5d41402abc4b2a76`;
      return printing(dir, 'longline', [['stdout', text(quietLog(20000, 10, { 10000: line }))]]);
    },
  },
  {
    name: 'noisy log, one fatal line in the middle',
    question: 'Which account had a balance mismatch?',
    term: 'balance mismatch',
    kind: 'fact',
    retained: true,
    evidence: has('account 88231'),
    build: (dir) => {
      const bytes = makeLogText(6 * MiB, 11, [
        { at: 0.5, line: '2024-05-18T12:00:00.000Z FATAL [ledger] balance mismatch for account 88231' },
      ]);
      return printing(dir, 'noisy', [['stdout', bytes.toString('utf8')]], { exit: 1 });
    },
  },
  {
    name: 'last line before a timeout',
    question: 'What was it waiting for when it hung?',
    term: 'waiting',
    kind: 'fact',
    retained: true,
    timeoutSeconds: 3,
    evidence: has('waiting for lock /var/run/app.lock held by pid 4411'),
    build: (dir) =>
      printing(dir, 'timeout', [['stdout', text([...quietLog(30000, 12), 'waiting for lock /var/run/app.lock held by pid 4411'])]], {
        after: 'sleep 30',
      }),
  },
  {
    name: 'absence, complete copy',
    question: 'Was /api/v2/refund ever called?',
    term: '/api/v2/refund',
    kind: 'absence',
    evidence: has('No match in the whole retained output'),
    build: (dir) => printing(dir, 'absent', [['stdout', text(quietLog(20000, 13))]]),
  },
  {
    name: 'absence, incomplete copy, seen at capture',
    question: 'Was there a checksum mismatch?',
    term: 'checksum mismatch',
    kind: 'absence',
    evidence: (t) => /dropped at capture[^\n]*checksum mismatch/.test(t) || /capture saw \d+ matching notable line/.test(t),
    build: (dir) => printing(dir, 'seen', [['stdout', text(quietLog(420000, 14, { 250000: 'error: checksum mismatch in segment 4411' }))]]),
  },
  {
    name: 'absence, incomplete copy, not seen',
    question: 'What release id was deployed?',
    term: 'release_id',
    kind: 'absence',
    // The right answer is "cannot tell": the line was an ordinary one in the dropped part.
    evidence: (t) => /may (still )?have been/.test(t),
    build: (dir) =>
      printing(dir, 'unseen', [['stdout', text(quietLog(420000, 15, { 260000: '2024-05-18 INFO [deploy] release_id=R-2024-0519-07' }))]]),
  },
];

// ---------------------------------------------------------------------------------------------
// "The id was lost" (issue 38 §6): the evidence sits in an output the agent no longer has the
// outputId of (the conversation was compacted, a new chat started, another agent ran the command).
// One workspace folder holds three sessions: an earlier session of this front end (closed), another
// agent's session (open by its owner, with an agent record) and the current session, whose evidence
// output is followed by 30 more commands. `where` says which holds the scenario's output; `command`
// is what the agent remembers of the command (for list_tool_outputs {command}), `term` what it
// searches for; `evidence(text)` says whether a text it read settles the question.

/** A log of `bytes` with `lines` (strings) planted in order around `at` (0..1). */
const logWith = (bytes, seed, at, lines) =>
  makeLogText(
    bytes,
    seed,
    lines.map((line, i) => ({ at: at + i * 1e-9, line })),
  );

export const LOST_ID_SCENARIOS = [
  {
    name: 'lost id: 30 commands back, this session',
    where: 'current',
    question: 'Which assertion failed in the test run before the refactor?',
    tool: 'run_command',
    command: 'npm test -- --reporter=verbose',
    remembered: 'npm test',
    term: 'AssertionError',
    exitCode: 1,
    evidence: has('expected 4821307 to equal 4821306'),
    output: () =>
      logWith(3 * MiB, 501, 0.55, [
        '2024-05-18T10:41:07.118Z ERROR [test] FAIL test/billing/ledger.test.ts > rounds cents half-even',
        '2024-05-18T10:41:07.118Z ERROR [test] AssertionError: expected 4821307 to equal 4821306 (ledger.test.ts:88:13)',
      ]),
  },
  {
    name: 'lost id: an earlier session (closed)',
    where: 'earlier',
    question: 'Why did the ETL import stop yesterday?',
    tool: 'run_command',
    command: 'python etl.py --since 2024-05-01',
    remembered: 'etl.py',
    term: 'Traceback',
    exitCode: 1,
    // The cause is four lines below the line the search finds: the agent reads from that line.
    evidence: has("ValueError: invalid literal for int() with base 10: 'abc'"),
    output: () =>
      logWith(2 * MiB, 502, 0.4, [
        'Traceback (most recent call last):',
        '  File "/srv/etl/etl.py", line 212, in <module>',
        '    main(sys.argv[1:])',
        '  File "/srv/etl/etl.py", line 41, in load_rows',
        '    n = int(row[3])',
        "ValueError: invalid literal for int() with base 10: 'abc'",
      ]),
  },
  {
    name: "lost id: another agent's session (open)",
    where: 'agent',
    question: 'Why did request req-7f3a91 fail (Claude Code looked at the server log)?',
    tool: 'claude-code:Bash',
    command: 'tail -n 20000 /var/log/api/server.log',
    remembered: 'server.log',
    term: 'req-7f3a91',
    evidence: has('upstream timeout after 30000 ms'),
    output: () =>
      logWith(2 * MiB, 503, 0.7, [
        '2024-05-18T11:02:44.510Z ERROR [http] request id=req-7f3a91 failed: upstream timeout after 30000 ms (pool exhausted, 64/64 busy)',
      ]),
  },
];

/** The other outputs of the lost-id workspace: `count` commands of `where`, 16–256 KiB of log each. */
export function lostIdNoise(where, count) {
  const commands = [
    'git status',
    'npm run lint',
    'npm run build',
    'ls -la src',
    'git diff --stat',
    'npm test -- ledger',
    'cat package.json',
  ];
  const seedBase = { current: 600, earlier: 700, agent: 800 }[where];
  return Array.from({ length: count }, (_, i) => ({
    tool: where === 'agent' ? 'claude-code:Bash' : 'run_command',
    command: commands[i % commands.length],
    exitCode: 0,
    output: makeLogText(16 * 1024 * (1 + ((i * 5) % 16)), seedBase + i),
  }));
}
