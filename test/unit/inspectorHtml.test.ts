import assert from 'node:assert/strict';
import { inspectorHtml } from '../../src/extension/inspector/html';

const base = { cspSource: 'vscode-resource:', scriptUri: 'vscode-resource:/inspector.js', styleUri: 'vscode-resource:/inspector.css' };
const csp = (html: string): string => /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(html)?.[1] ?? '';

describe('inspector HTML shell (src/extension/inspector/html.ts)', () => {
  it('the inspector page loads one script, by nonce, under default-src none', () => {
    const html = inspectorHtml({ ...base, nonce: 'abc123' });
    assert.equal(html.match(/<script/g)?.length, 1);
    assert.match(html, /<script nonce="abc123" src="vscode-resource:\/inspector.js">/);
    assert.match(csp(html), /^default-src 'none'; style-src vscode-resource:; script-src 'nonce-abc123';/);
  });

  it('a placeholder page (the side view before a selection) has the same policy, its text escaped, and no script', () => {
    const html = inspectorHtml({ ...base, nonce: 'abc123', placeholder: 'Select <b>an</b> output & "see"' });
    assert.equal(html.includes('<script'), false);
    assert.match(html, /<p class="muted">Select &lt;b&gt;an&lt;\/b&gt; output &amp; &quot;see&quot;<\/p>/);
    assert.equal(html.includes('id="app"'), false, 'no element the inspector script would take over');
    assert.equal(csp(html), csp(inspectorHtml({ ...base, nonce: 'abc123' })));
    assert.match(html, /<link rel="stylesheet" href="vscode-resource:\/inspector.css">/);
  });

  it("a view's page is marked, so it takes the background of where the view is; a panel's is not", () => {
    assert.match(inspectorHtml({ ...base, surface: 'view' }), /<html lang="en" data-surface="view">/);
    assert.match(inspectorHtml({ ...base, surface: 'view', placeholder: 'x' }), /<html lang="en" data-surface="view">/);
    assert.match(inspectorHtml(base), /<html lang="en">/);
  });

  it('carries the translations inside the page (it fetches nothing): the bundle as escaped JSON, and the display language', () => {
    const bundle = { 'Retained copy': '保留的副本', 'Quote " & <b>': '引号 " & <b>' };
    const html = inspectorHtml({ ...base, language: 'zh-cn', bundle });
    assert.match(html, /<html lang="zh-cn">/);
    const attribute = /<meta id="l10n-bundle" data-bundle="([^"]*)">/.exec(html)?.[1];
    assert.ok(attribute, 'no bundle element');
    const decoded = attribute
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    assert.deepEqual(JSON.parse(decoded), bundle);
    assert.equal(csp(html), csp(inspectorHtml({ ...base, nonce: /'nonce-([^']+)'/.exec(csp(html))![1] })), 'the same policy');
    assert.equal(inspectorHtml(base).includes('l10n-bundle'), false, 'English: no bundle');
    assert.equal(
      inspectorHtml({ ...base, bundle, placeholder: 'x' }).includes('l10n-bundle'),
      false,
      'a placeholder page has no script to read it',
    );
  });
});
