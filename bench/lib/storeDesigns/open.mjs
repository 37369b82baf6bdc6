// Opens a prototype store of design A (segments) or B (in place) on `file`.
import initSqlJs from 'sql.js';
import { InPlaceStore, loadInPlace } from './inPlace.mjs';
import { SegmentStore } from './segments.mjs';

export const DESIGNS = {
  segments: { label: 'A: segments + index', available: () => true },
  inPlace: { label: 'B: in place (VFS)', available: () => loadInPlace() !== undefined },
};

let SQL;
export async function openDesign(design, file) {
  if (design === 'segments') return new SegmentStore((SQL ??= await initSqlJs()), file);
  if (design === 'inPlace') return new InPlaceStore(loadInPlace(), file);
  throw new Error(`unknown design ${design}`);
}
