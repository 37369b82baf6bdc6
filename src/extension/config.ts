import * as vscode from 'vscode';
import { resolveSettings, type RecallSettings } from '../core/settings';

export type { RecallSettings };

export const SECTION = 'toolOutputRecall';

/** Settings under `toolOutputRecall.*`, read fresh on each use so changes apply at once (clamps in core/settings.ts). */
export function readSettings(): RecallSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return resolveSettings((key) => config.get(key));
}
