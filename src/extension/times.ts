/**
 * Times as every place shows them: the inspector page's own functions (webview/times.ts, free of vscode
 * and the DOM) in VS Code's display language, so the tree, the status bar, the session names and the
 * page show one exact form, and lists a relative one with the exact time in the tooltip.
 */
import * as vscode from 'vscode';
import { exactTime as exactIn, relativeTime as relativeIn } from '../../webview/times';

export const exactTime = (epochMs: number): string => exactIn(epochMs, vscode.env.language);
export const relativeTime = (epochMs: number, now = Date.now()): string => relativeIn(epochMs, now, vscode.env.language);
