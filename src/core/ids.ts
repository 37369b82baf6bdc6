import { randomBytes } from 'node:crypto';

/**
 * Output IDs are 96 random bits: unguessable, so knowing one is the only way to name a copy.
 * Session IDs double as file names, so they are checked against a strict pattern before any path
 * is built from them.
 */
const OUTPUT_ID = /^out_[0-9a-f]{24}$/;
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

export const newOutputId = (): string => `out_${randomBytes(12).toString('hex')}`;

export function newSessionId(): string {
  const day = new Date().toISOString().slice(0, 10).replace(/-/g, '');
  return `s${day}-${randomBytes(6).toString('hex')}`;
}

export const isOutputIdShape = (value: string): boolean => OUTPUT_ID.test(value);
export const isSessionIdShape = (value: string): boolean => SESSION_ID.test(value);
