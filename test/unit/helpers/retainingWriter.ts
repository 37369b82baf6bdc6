/**
 * The writer of the read-only reader's tests: a session's history that both sides can compute.
 * Step j retains `stepContent(j)` titled `step j`, except every fourth step, which removes the
 * output of step j-2; so the outputs a state shows say which state it is.
 */
import { KiB } from '../../../src/core/limits';

export const isRemoveStep = (step: number): boolean => step % 4 === 3;

/** Deterministic content of 1-160 KiB (several 64 KiB chunks for some, deflated or not). */
export function stepContent(step: number): string {
  const bytes = ((step * 7919) % 160) * KiB + 1 + step;
  const line = `step ${step} line `;
  const parts: string[] = [];
  let size = 0;
  for (let k = 0; size < bytes; k++) {
    const text = `${line}${k} ${(k * 2654435761) % 1000003}\n`;
    parts.push(text);
    size += text.length;
  }
  return parts.join('').slice(0, bytes);
}

/** The steps whose outputs are present after step `last` (-1: none yet). */
export function stateAfter(last: number): Set<number> {
  const present = new Set<number>();
  for (let step = 0; step <= last; step++) {
    if (isRemoveStep(step)) present.delete(step - 2);
    else present.add(step);
  }
  return present;
}
