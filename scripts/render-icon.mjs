#!/usr/bin/env node
// Renders media/icon.svg to media/icon.png (128×128, transparent corners) with Debian's chromium
// through playwright-core, both already used by the tests: `node scripts/render-icon.mjs`.
// The PNG is committed (the VSIX and the marketplaces need a PNG); rerun this after editing the SVG.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { ROOT } from './host/common.mjs';
import { CHROMIUM } from './host/setup.mjs';

const SIZE = 128;
const svg = readFileSync(path.join(ROOT, 'media', 'icon.svg'), 'utf8');
const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE }, deviceScaleFactor: 1 });
  await page.setContent(`<!DOCTYPE html><html><body style="margin:0;background:transparent">${svg}</body></html>`);
  const png = await page.locator('svg').screenshot({ omitBackground: true });
  writeFileSync(path.join(ROOT, 'media', 'icon.png'), png);
  process.stdout.write(`media/icon.png: ${png.length} bytes, ${SIZE}×${SIZE}\n`);
} finally {
  await browser.close();
}
