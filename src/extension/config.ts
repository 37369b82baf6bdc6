import * as vscode from 'vscode';
import { resolveSettings, type RecallSettings } from '../core/settings';
import { SETTINGS_SECTION } from '../core/manifest';

export type { RecallSettings };

/** Settings under `toolOutputRecall.*`, read fresh on each use so changes apply at once (clamps in core/settings.ts). */
export function readSettings(): RecallSettings {
  const config = vscode.workspace.getConfiguration(SETTINGS_SECTION);
  return resolveSettings((key) => config.get(key));
}
