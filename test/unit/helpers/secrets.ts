// Secret values for the masking property tests (test/system/secretMasking.test.ts,
// secretUtf16.test.ts), and the check that none of them shows in clear.
import type { Rng } from './prng';

export const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const BASE64 = `${ALNUM}+/`;
export const URLSAFE = `${ALNUM}_-`;

/** `n` characters drawn from `set`. */
export const chars = (rng: Rng, set: string, n: number): string =>
  Array.from({ length: n }, () => set[rng.int(0, set.length - 1)]).join('');

/** Shapes both tests place: a prefix that names the kind, then a value drawn fresh (what must not show). */
const PREFIXED = {
  ghp: (rng: Rng): [string, string] => ['ghp_', chars(rng, ALNUM, 36)],
  githubPat: (rng: Rng): [string, string] => ['github_pat_', `11${chars(rng, ALNUM, 20)}_${chars(rng, ALNUM, 59)}`],
  awsKeyId: (rng: Rng): [string, string] => ['AKIA', chars(rng, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567', 16)],
  awsSecret: (rng: Rng): [string, string] => ['aws_secret_access_key = ', chars(rng, BASE64, 40)],
  npmAuthToken: (rng: Rng): [string, string] => ['//registry.npmjs.org/:_authToken=', chars(rng, ALNUM, 36)],
  slack: (rng: Rng): [string, string] => ['xoxb-', `${chars(rng, '0123456789', 12)}-${chars(rng, ALNUM, 24)}`],
  bearer: (rng: Rng): [string, string] => ['Authorization: Bearer ', chars(rng, URLSAFE, 40)],
};

/** The shapes `names`, in that order (a test's draws depend on its shapes' order), each made by `one(prefix, value)`. */
export function prefixedShapes<P>(
  one: (prefix: string, value: string) => P,
  ...names: (keyof typeof PREFIXED)[]
): Record<string, (rng: Rng) => P> {
  return Object.fromEntries(names.map((name) => [name, (rng: Rng) => one(...PREFIXED[name](rng))]));
}

/** The first 8-character run of any secret that `shown` holds in clear, or undefined (a set of what is shown: linear in both). */
export function leak(shown: string, secrets: readonly string[]): string | undefined {
  const grams = new Set<string>();
  for (let i = 0; i + 8 <= shown.length; i++) grams.add(shown.slice(i, i + 8));
  for (const secret of secrets) {
    for (let i = 0; i + 8 <= secret.length; i++) if (grams.has(secret.slice(i, i + 8))) return secret.slice(i, i + 8);
  }
  return undefined;
}
