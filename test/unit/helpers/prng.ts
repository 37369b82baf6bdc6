/**
 * A small seeded PRNG (mulberry32) so property tests reproduce: every failure message carries the
 * seed, and `TEST_SEED=<n> npx mocha test/unit/<file>` replays it.
 */
export interface Rng {
  readonly seed: number;
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max] (inclusive). */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  chance(probability: number): boolean;
}

export function seedFromEnv(fallback: number): number {
  const fromEnv = Number(process.env.TEST_SEED);
  return Number.isInteger(fromEnv) && process.env.TEST_SEED !== '' ? fromEnv : fallback;
}

export function makeRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    seed,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => items[Math.floor(next() * items.length)],
    chance: (probability) => next() < probability,
  };
}
