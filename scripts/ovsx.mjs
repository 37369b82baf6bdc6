#!/usr/bin/env node
// `npm run ovsx -- <ovsx arguments>`: the Open VSX command-line client (`ovsx`, pinned below) under
// Node 24. ovsx needs Node >= 22 and this repository works with Node 20, so it runs with the Node 24
// that the real-host tests install (scripts/host/setup.mjs: the first call installs it). Needs the
// network: npm fetches ovsx once, and publishing talks to open-vsx.org. See docs/development.md, "Publishing".
//   npm run package && npm run ovsx -- publish tool-output-recall.vsix -p "$OVSX_PAT"
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ensureHost } from './host/setup.mjs';

const OVSX_VERSION = '1.3.0';

const host = ensureHost({ quiet: true });
// Node 24 first on PATH: npm's own shebang and ovsx's resolve `node` through it.
const env = { ...process.env, PATH: `${path.dirname(host.node)}${path.delimiter}${process.env.PATH}` };
const args = ['exec', '--yes', `--package=ovsx@${OVSX_VERSION}`, '--', 'ovsx', ...process.argv.slice(2)];
const r = spawnSync('npm', args, { stdio: 'inherit', env });
if (r.error) throw new Error(`npm could not start: ${r.error.message}`);
process.exitCode = r.status ?? 1;
