// The rooms of src/core import one way. Each folder of src/core, and each file directly in it, is a
// room; src/core/floors.ts (`CORE_FLOORS`) states their order bottom up, one array per floor, and this
// test holds the code to it: every import goes from a room to a room on an EARLIER floor (never the
// same floor, never a later one), and every room is on exactly one floor.
// An order in which every import goes down is a proof that the rooms form no circle; should the order
// be broken, the circle finder names the circle, if there is one, with the files that make it.
//
// Imports counted: `import … from`, `export … from`, `import x = require()`, `require()` and dynamic
// `import()` of a relative path inside src/core. Type-only imports count too: they are erased from the
// bundle, but a type shared both ways is a design tie both ways, and a room moved or tested on its own
// takes its types with it.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { CORE_FLOORS } from '../../src/core/floors';

const REPO = path.resolve(__dirname, '../..');
const CORE = path.join(REPO, 'src/core');

/** Room -> the rooms it imports -> the files (relative to src/core) whose imports make that edge. */
export type RoomGraph = Map<string, Map<string, string[]>>;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return /\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name) ? [full] : [];
  });
}

/** `store/` for a file in a folder, `settings.ts` for a file directly in src/core: the names CORE_FLOORS uses. */
const roomOf = (relative: string): string => {
  const [first, ...rest] = relative.split(path.sep);
  return rest.length > 0 ? `${first}/` : first;
};

/** Relative module paths a source text imports (comments aside). */
export function importedPaths(source: string): string[] {
  const text = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
  const patterns = [
    /^\s*(?:import|export)\s[^;]*?\sfrom\s*['"](\.[^'"]+)['"]/gms, // import … from './x', export … from './x'
    /^\s*import\s*['"](\.[^'"]+)['"]/gm, // import './x'
    /\brequire\s*\(\s*['"](\.[^'"]+)['"]\s*\)/g, // require('./x'), import x = require('./x')
    /\bimport\s*\(\s*['"](\.[^'"]+)['"]\s*\)/g, // import('./x'), import('./x').T
  ];
  return patterns.flatMap((pattern) => [...text.matchAll(pattern)].map((match) => match[1]));
}

/** The import graph of the rooms of `core`. */
export function coreRoomGraph(core = CORE): RoomGraph {
  const edges: RoomGraph = new Map();
  for (const file of sourceFiles(core)) {
    for (const imported of importedPaths(readFileSync(file, 'utf8'))) {
      const target = path.relative(core, path.resolve(path.dirname(file), imported));
      if (target.startsWith('..')) continue;
      const from = roomOf(path.relative(core, file));
      const to = roomOf(withExtension(core, target));
      if (from === to) continue;
      const out = edges.get(from) ?? new Map<string, string[]>();
      out.set(to, [...new Set([...(out.get(to) ?? []), path.relative(core, file)])]);
      edges.set(from, out);
    }
  }
  return edges;
}

/** './settings' names settings.ts, './search' names search/ (its index.ts). */
function withExtension(core: string, target: string): string {
  if (target.includes(path.sep)) return target;
  const inCore = new Set(readdirSync(core));
  if (inCore.has(target)) return `${target}${path.sep}index.ts`; // a folder
  return inCore.has(`${target}.ts`) ? `${target}.ts` : target;
}

/** Every room of `core`: its folders and the files directly in it. */
export function coreRooms(core = CORE): string[] {
  return readdirSync(core, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() || /\.(ts|mts|cts|js|mjs|cjs)$/.test(entry.name))
    .map((entry) => (entry.isDirectory() ? `${entry.name}/` : entry.name))
    .sort();
}

/** A circle of rooms, each with the files that import the next, or undefined. */
export function findCircle(edges: RoomGraph): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (room: string): string[] | undefined => {
    state.set(room, 'open');
    stack.push(room);
    for (const next of edges.get(room)?.keys() ?? []) {
      if (state.get(next) === 'open') {
        const circle = [...stack.slice(stack.indexOf(next)), next];
        return circle.map((each, i) =>
          i + 1 < circle.length
            ? `${each} (${edges
                .get(each)
                ?.get(circle[i + 1])
                ?.join(', ')})`
            : each,
        );
      }
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(room, 'done');
    return undefined;
  };
  for (const room of edges.keys()) {
    if (state.has(room)) continue;
    const found = visit(room);
    if (found) return found;
  }
  return undefined;
}

/** The imports that do not go down the stated order (`floors`: rooms bottom up, one array per floor). */
export function importsAgainstOrder(edges: RoomGraph, floors: readonly (readonly string[])[]): string[] {
  const floorOf = new Map(floors.flatMap((rooms, floor) => rooms.map((room) => [room, floor] as const)));
  const wrong: string[] = [];
  for (const [from, out] of edges) {
    for (const [to, files] of out) {
      const [a, b] = [floorOf.get(from), floorOf.get(to)];
      if (a === undefined || b === undefined || b >= a)
        wrong.push(
          `${from} (floor ${a === undefined ? '?' : a + 1}) imports ${to} (floor ${b === undefined ? '?' : b + 1}): ${files.join(', ')}`,
        );
    }
  }
  return wrong;
}

const graph = (pairs: [string, string][]): RoomGraph => {
  const edges: RoomGraph = new Map();
  for (const [from, to] of pairs) edges.set(from, (edges.get(from) ?? new Map<string, string[]>()).set(to, [`${from}x.ts`]));
  return edges;
};

describe('core folders: the rooms of src/core import one way, in the order src/core/floors.ts states', () => {
  const floors = CORE_FLOORS;

  it('the checks fail on a circle: the finder names it, and no order lets it through', () => {
    const line = graph([
      ['a/', 'b/'],
      ['b/', 'c.ts'],
    ]);
    const circle = graph([
      ['a/', 'b/'],
      ['b/', 'c.ts'],
      ['c.ts', 'a/'],
    ]);
    assert.equal(findCircle(line), undefined);
    assert.deepEqual(importsAgainstOrder(line, [['c.ts'], ['b/'], ['a/']]), []);
    assert.deepEqual(findCircle(circle), ['a/ (a/x.ts)', 'b/ (b/x.ts)', 'c.ts (c.tsx.ts)', 'a/']);
    for (const order of [
      [['c.ts'], ['b/'], ['a/']],
      [['a/'], ['b/'], ['c.ts']],
      [['b/'], ['a/', 'c.ts']],
    ])
      assert.ok(importsAgainstOrder(circle, order).length > 0, JSON.stringify(order));
    // Rooms on one floor may not import each other either, and a room the order leaves out is an error.
    assert.equal(importsAgainstOrder(line, [['c.ts'], ['a/', 'b/']]).length, 1);
    assert.match(importsAgainstOrder(line, [['c.ts'], ['b/']])[0], /^a\/ \(floor \?\) imports b\//);
  });

  it('reads imports of every form, type-only ones included, and not those in comments', () => {
    const source = [
      `import { a } from './a';`,
      `import type { B } from '../b/x';`,
      `export { c } from './c';`,
      `export type { D } from './d';`,
      `import './e';`,
      `const f = require('./f');`,
      `import g = require('./g');`,
      `type H = import('./h').H;`,
      `const i = await import('./i');`,
      `import {\n  j,\n  type J,\n} from './j';`,
      `// import { k } from './k';`,
      `/* import { l } from './l'; */`,
      `import { readFileSync } from 'node:fs';`,
    ].join('\n');
    assert.deepEqual(importedPaths(source).sort(), ['../b/x', './a', './c', './d', './e', './f', './g', './h', './i', './j']);
  });

  it('CORE_FLOORS states every room of src/core on exactly one floor', () => {
    assert.ok(floors.length > 5, `found ${floors.length} floors of rooms in CORE_FLOORS`);
    const stated = floors.flat();
    const duplicates = stated.filter((room, i) => stated.indexOf(room) !== i);
    assert.deepEqual(duplicates, [], 'rooms stated twice');
    assert.deepEqual([...stated].sort(), coreRooms(), 'the rooms CORE_FLOORS states are the rooms of src/core');
  });

  it('every import of a room goes to a room on an earlier floor', () => {
    const edges = coreRoomGraph();
    assert.ok(edges.size > 10, `found imports in only ${edges.size} rooms`);
    const wrong = importsAgainstOrder(edges, floors);
    const circle = findCircle(edges);
    assert.deepEqual(
      wrong,
      [],
      circle ? `a circle of rooms: ${circle.join(' -> ')}` : 'move the room to a later floor of src/core/floors.ts',
    );
  });

  it('no circle among the rooms', () => {
    const circle = findCircle(coreRoomGraph());
    assert.equal(circle, undefined, `a circle of rooms: ${circle?.join(' -> ')}`);
  });
});
