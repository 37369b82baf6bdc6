// A command named briefly for lists (src/core/commandLabel.ts): the program and its key argument, never
// the first 40 characters of a script.
import assert from 'node:assert/strict';
import { COMMAND_LABEL_CHARS, commandLabel, commandName, outputLabel } from '../../src/core/commandLabel';

describe('commandName', () => {
  const cases: [string, string][] = [
    [`awk '{ sum += $3 } END { print sum / NR }' build/file.log`, 'awk build/file.log'],
    ['npm run test -- --grep x', 'npm run test'],
    ['npm test', 'npm test'],
    [`bash -c "cd web && npx mocha test/unit/x.test.ts"`, 'npx mocha test/unit/x.test.ts'],
    [`sh -c 'seq 1 20 | sort -r'`, 'seq 1 20 …'],
    ['cat half.log', 'cat half.log'],
    ['git log --oneline -20', 'git log'],
    [`grep -rn "TODO" src`, 'grep TODO src'],
    [`sed -n '1,20p' notes.txt`, 'sed 1,20p notes.txt'],
    ['FOO=1 sudo make -j8 all', 'make all'],
    ['head -n 100 server.log', 'head server.log'],
    ['python3 -c "import sys; print(sys.version)"', 'python3'],
    ['cd demo && sh build-log.sh > out.txt 2>&1', 'sh build-log.sh'],
    [`echo "something failed" >&2; exit 3`, 'echo something failed …'],
    ['ls -la /very/long/path/to/some/deeply/nested/folder/file.txt', 'ls folder/file.txt'],
    ['for i in $(seq 1 20); do echo $i; done', 'for i $(seq 1 20) …'],
  ];
  for (const [command, label] of cases) {
    it(`${command} → ${label}`, () => assert.equal(commandName(command), label));
  }
});

describe('commandLabel', () => {
  it('a short one-line command as it is; a long one by its name', () => {
    assert.equal(commandLabel('npm run test -- --grep x'), 'npm run test -- --grep x');
    assert.equal(commandLabel(`npm run test -- --grep "the pager pages through the copy"`), 'npm run test');
    assert.equal(commandLabel('make\nmake install'), 'make …');
  });

  it('never longer than its limit, and falls back to the line when there are no words', () => {
    const long = commandLabel(`node ${'x'.repeat(100)}.js`);
    assert.ok(long.length <= COMMAND_LABEL_CHARS && long.endsWith('…'), long);
    assert.equal(commandLabel('   '), '');
    assert.equal(commandLabel('\n\nmake\n'), 'make');
  });
});

describe('outputLabel', () => {
  it('reads only a command as shell words; another title is its first line, clipped', () => {
    assert.equal(outputLabel(`awk '{ if ($3 > max) max = $3 } END { print max }' app.log`, true), 'awk app.log');
    assert.equal(outputLabel('inspector test: to delete', false), 'inspector test: to delete');
    assert.equal(outputLabel(`Read File Page: ${'x'.repeat(60)}\nmore`, false).length, COMMAND_LABEL_CHARS);
  });
});
