/**
 * Runs search steps on a thread that must stay responsive: in slices of a few milliseconds, with a
 * turn of the event loop between them (a cancel message gets through), stopping at cancellation or
 * at the time limit.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { RecallError } from '../errors';

const SLICE_MS = 8;

export interface StepControl {
  /** Set once the caller cancelled. */
  cancelled(): boolean;
  /** performance.now() past which the search stops with TIMEOUT (Infinity: never). */
  deadline: number;
  timeoutMs: number;
}

/** Runs `steps` to the end, between others' work; throws CANCELLED or TIMEOUT when stopped. */
export async function runSliced(steps: Iterator<void, void>, control: StepControl): Promise<void> {
  let sliceEnd = performance.now() + SLICE_MS;
  for (let step = steps.next(); !step.done; step = steps.next()) {
    if (performance.now() < sliceEnd) continue;
    await nextTurn();
    checkStopped(control);
    sliceEnd = performance.now() + SLICE_MS;
  }
}

/** Throws when the search was cancelled or ran past its time limit. */
export function checkStopped(control: StepControl): void {
  if (control.cancelled()) throw cancelledError();
  if (performance.now() > control.deadline) throw timeoutError(control.timeoutMs);
}

export const cancelledError = (): RecallError => new RecallError('CANCELLED', 'The search was cancelled before it finished.');

export function timeoutError(timeoutMs: number): RecallError {
  const seconds = Number((timeoutMs / 1000).toFixed(3));
  return new RecallError(
    'TIMEOUT',
    `The search took longer than ${seconds} s and was stopped. Narrow it: a literal text, or a pattern with a literal part (e.g. "ERROR.*timeout" rather than ".*timeout"), runs fastest; a pattern that names a line break (\\n) runs slowest.`,
    { timeoutMs },
  );
}
