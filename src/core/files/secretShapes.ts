/**
 * Secret-shaped values in the text of a file the name rules let through (sensitivePaths.ts): a
 * private-key block (also in base64), a GitHub, GitLab, npm, Slack, Stripe, Google or AI-provider
 * token, an AWS key, an npm config credential, an `Authorization:` header's credential, a password in
 * a URL, a JWT's signature. UTF-16 text is masked through textEncoding.ts.
 * `read_file_page` and `search_tool_output` mask them before the model sees a byte: every ASCII
 * printable byte of the value becomes '*', so lengths, line breaks and UTF-8 boundaries stay exactly
 * where they were (ASCII replaced by ASCII never moves a character boundary) and every byte offset
 * stays valid. A search runs over the masked text, so a pattern cannot probe a secret byte by byte.
 *
 * Masked rather than refused: a log or a fixture that holds one token is still worth reading, and
 * the text around it is what the model came for. The literal prefix that names a token's kind
 * (`ghp_`, `AKIA`, `xoxb-` …) stays visible, so the model can tell the user what was there.
 */

/** A masked range of the bytes, [start, end). */
export interface SecretRange {
  start: number;
  end: number;
  /** A private-key block (its body; the BEGIN and END lines stay visible). */
  block: boolean;
  /** Where the value begins, header included; -1 for a block that began before these bytes. */
  from: number;
}

/**
 * How far beyond a page `read_file_page` reads to find the secrets that reach into it: a token is
 * at most a few KiB, and a private-key block whose BEGIN line lies this far before the page, or its
 * END line this far after it, is masked even when the page holds neither line.
 */
export const SECRET_CONTEXT_BYTES = 32 * 1024;
/** Longer than any token shape below (LONGEST_MATCH), so a value cut by the end of a read is never shown unmasked; UTF-16 needs twice this (textEncoding.ts). */
export const SECRET_GUARD_BYTES = 16 * 1024;

interface Shape {
  /** A literal part every match holds, found first (one pass over the text for all shapes). */
  anchor: string;
  /** How far before its anchor a match may start. */
  before: number;
  /** Sticky; its one capture group is the masked part, at the end of the match. */
  pattern: RegExp;
}

const shape = (anchor: string, before: number, source: string): Shape => ({ anchor, before, pattern: new RegExp(source, 'y') });

/** A key name's quote, also JSON-escaped (`\"`, `\\\"` inside a JSON string), and what joins it to its value (`:`, `=`, Ruby's `=>`). */
const QUOTE = String.raw`(?:\\{0,7}["'])?`;
const JOIN = String.raw`${QUOTE}[ \t]{0,256}(?:=>|[:=])[ \t]{0,256}${QUOTE}`;
/** Base64 of "-----BEGIN" at each of its three alignments, then of "PRIVATE KEY" at each (a Kubernetes Secret's `tls.key`, kubeconfig's `client-key-data`). */
const B64_BEGIN = 'LS0tLS1CRUdJTi|LS0tQkVHSU4g|LS0tLUJFR0lO';
const B64_PRIVATE_KEY = 'UFJJVkFURSBL|UklWQVRFIEtF|SVZBVEUgS0VZ';
/**
 * A base64 body runs on over a line break before a full wrapped line (60+ characters), then over
 * one last short line of base64 alone. The first two counts keep the match under LONGEST_MATCH.
 */
const B64_BODY = String.raw`(?:[A-Za-z0-9+/=]|\r?\n(?=[A-Za-z0-9+/]{60})){16,9600}(?:\r?\n[A-Za-z0-9+/]{1,75}={0,2}(?=\r?\n))?`;

/**
 * A token is found wherever its prefix is, also glued to the text before or after it: two values
 * back to back (`…ghp_…`, `<key>AKIA…`) are two values, and a random run that happens to follow a
 * token's prefix masked is a far smaller loss than a token shown. Key names are matched as the tools
 * that write them spell them (`my_authToken` is a variable, not npm's `_authToken`), also inside an
 * escaped JSON string and in a Ruby hash. A '/' escaped as `\/` (PHP's JSON) is part of a value.
 */
const SHAPES: readonly Shape[] = [
  // GitHub: classic personal, OAuth, user-to-server, server-to-server and refresh tokens; fine-grained PATs.
  shape('gh[pousr]_', 0, String.raw`gh[pousr]_([A-Za-z0-9]{36,251})`),
  shape('github_pat_', 0, String.raw`github_pat_([A-Za-z0-9_]{22,251})`),
  // GitLab personal/project/group, deploy, runner, CI job, trigger, feed, mail, agent, SCIM, OAuth and feature-flag tokens.
  shape(
    'gl(?:pat|dt|rt|cbt|ptt|ft|imt|agent|soat|oas|ffct)-',
    0,
    String.raw`gl(?:pat|dt|rt|cbt|ptt|ft|imt|agent|soat|oas|ffct)-([A-Za-z0-9_.-]{20,250})`,
  ),
  // AWS access key IDs (long-term and temporary), and secret access keys by their key names.
  shape('A[KS]IA', 0, String.raw`A[KS]IA([A-Z0-9]{16})`),
  shape(
    'aws_secret_access_key|AWS_SECRET_ACCESS_KEY|[Ss]ecretAccessKey',
    0,
    String.raw`(?:aws_secret_access_key|AWS_SECRET_ACCESS_KEY|[Ss]ecretAccessKey)${JOIN}((?:[A-Za-z0-9+=]|\\?/){40})`,
  ),
  // npm, yarn and pip config credentials (an environment reference such as ${NPM_TOKEN} is not one;
  // a '$' inside a value is part of it).
  shape(
    '_auth|_password|npmAuth',
    0,
    String.raw`(?<![A-Za-z0-9_])(?:_authToken|_auth|_password|npmAuthToken|npmAuthIdent)${JOIN}([A-Za-z0-9._~+/=:-][A-Za-z0-9._~+/=:$-]{5,999})`,
  ),
  shape('npm_', 0, String.raw`npm_([A-Za-z0-9]{36})`),
  // Slack bot, user, app, workspace-refresh, rotation and legacy tokens; app-level tokens.
  shape('xox[abposre]-|xapp-', 0, String.raw`(?:xox[abposre]|xapp)-([A-Za-z0-9-]{10,250})`),
  // An HTTP Authorization credential (git's http.extraheader, curl -v, request logs); `$VAR` and
  // `${VAR}` are none, but a '$' inside a token is part of it.
  shape(
    '[Aa]uthorization|AUTHORIZATION',
    0,
    String.raw`(?:[Aa]uthorization|AUTHORIZATION)${JOIN}(?:[Bb]asic|[Bb]earer|[Tt]oken|BASIC|BEARER|TOKEN)[ \t]{1,256}([A-Za-z0-9._~+/=-](?:[A-Za-z0-9._~+/=$-]|\\/){7,1999})`,
  ),
  // Google API keys, Stripe live keys, OpenAI (project, service-account, admin, user and legacy) and Anthropic keys.
  shape('AIza', 0, String.raw`AIza([0-9A-Za-z_-]{35})`),
  shape('[sr]k_live_', 0, String.raw`[sr]k_live_([0-9A-Za-z]{16,250})`),
  shape('sk-(?:proj|ant|svcacct|admin|None)-', 0, String.raw`sk-(?:proj|ant|svcacct|admin|None)-([A-Za-z0-9_-]{20,500})`),
  shape('T3BlbkFJ', 23, String.raw`sk-([A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20})`),
  // A JWT: its signature (header and claims stay readable; without the signature it grants nothing).
  shape('eyJ[A-Za-z0-9_-]{8}', 0, String.raw`eyJ[A-Za-z0-9_-]{8,1000}\.eyJ[A-Za-z0-9_-]{8,8000}\.([A-Za-z0-9_-]{8,1000})`),
  // A PEM private key in base64, on one line or wrapped: what follows its encoded BEGIN line's
  // "PRIVATE KEY" (a certificate's `client-certificate-data` has none, and stays readable). Not
  // again within 180 characters of the last one (a body scan each would cost 10 KB per 200 bytes).
  shape(
    B64_BEGIN,
    0,
    String.raw`(?<!(?:${B64_BEGIN})[A-Za-z0-9+/=]{0,180})(?:${B64_BEGIN})[A-Za-z0-9+/]{0,64}?(?:${B64_PRIVATE_KEY})(${B64_BODY})`,
  ),
  // PEM, OpenSSH and PGP private-key armour lines (the whole line is the match; `maskSecrets` pairs them).
  shape('PRIVATE KEY', 64, String.raw`-----(BEGIN|END) (?:[A-Z0-9]+ ){0,6}PRIVATE KEY(?: BLOCK)?-----`),
];
const ARMOUR = SHAPES[SHAPES.length - 1];
/**
 * The longest match of any shape with what its lookaheads read past it (a JWT: 10,008 bytes; a
 * base64 private key: about 10,000).
 */
const LONGEST_MATCH = 10_100;
/** How far before its anchor a match and its lookbehind may reach (a base64 key's look-back: 194). */
export const SECRET_LOOK_BEHIND_BYTES = 200;
const TEXT_SLICE_BYTES = 64 * 1024;
/** Every shape's anchor, each in its own group: one pass of V8's engine over literals finds them all. */
const ANCHORS = new RegExp(SHAPES.map((each) => `(${each.anchor})`).join('|'), 'g');

/**
 * The characters of a URL's user info (RFC 3986: unreserved, sub-delims, %, and ':' inside the
 * password). '@' too: a password with an unencoded '@' is still masked up to the last one. `${VAR}`
 * is no password: '{' and '}' are not among them, so the walk back from '@' stops at once.
 */
const USERINFO = new Uint8Array(128);
for (const char of "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~%!$&'()*+,;=:@-") USERINFO[char.charCodeAt(0)] = 1;
const isUserinfo = (byte: number | undefined): boolean => byte !== undefined && byte < 128 && USERINFO[byte] === 1;
/** How far back from an '@' a URL's "://" may lie (user and password together). */
const USERINFO_BYTES = 1256;

/**
 * The password of a URL's user info, scheme://user:PASSWORD@host (.git/config, .git-credentials,
 * DSNs, JSON's `https:\/\/`): from each '@', back over the user info to "://"; the password runs
 * from the first ':' after it (a user name has none) to the '@', so a password holding ':', '$' or
 * '@' is masked whole.
 */
function* urlPasswords(bytes: Buffer): Generator<SecretRange> {
  // Where the walk from the previous '@' stopped: a walk that reaches that '@' (user info all the
  // way) would stop there too, so it takes that answer instead of walking again. Without this, a
  // run of '@' (itself user info) costs USERINFO_BYTES steps per '@'.
  let lastAt = -1;
  let lastStop = -1;
  for (let at = bytes.indexOf(0x40); at >= 0; at = bytes.indexOf(0x40, at + 1)) {
    let scheme = at - 1;
    while (scheme > lastAt && at - scheme <= USERINFO_BYTES && isUserinfo(bytes[scheme])) scheme--;
    if (scheme === lastAt && lastAt >= 0) scheme = lastStop;
    [lastAt, lastStop] = [at, scheme];
    // Past the bound: no "://" near enough to be this '@''s.
    if (at - scheme > USERINFO_BYTES) continue;
    const sep = schemeColon(bytes, scheme);
    if (sep < 0) continue;
    const colon = bytes.indexOf(0x3a, scheme + 1);
    if (colon < 0 || colon >= at - 1) continue;
    // All '*' is no secret to count: a URL already redacted in a log, or text masked before.
    if (!bytes.subarray(colon + 1, at).every((byte) => byte === 0x2a)) yield { start: colon + 1, end: at, block: false, from: sep };
  }
}

/**
 * Where the ':' of "://" is when `slash` is its last '/', or -1. Each '/' may be JSON-escaped
 * (`https:\/\/`, up to seven backslashes: a JSON string inside JSON strings).
 */
function schemeColon(bytes: Buffer, slash: number): number {
  let at = slash;
  for (let n = 0; n < 2; n++) {
    if (bytes[at] !== 0x2f) return -1;
    at--;
    for (let escapes = 0; escapes < 7 && bytes[at] === 0x5c; escapes++) at--;
  }
  return at >= 0 && bytes[at] === 0x3a ? at : -1;
}

/**
 * Where `found` matches over its anchor `at` (trying each start up to `before` back), or undefined.
 * The match must reach past `at`: a key's BEGIN line right after another key's END line would
 * otherwise match that END line again (it starts within the look-back) and the second key's BEGIN
 * would never be seen.
 */
function matchAt(text: string, found: Shape, at: number): RegExpExecArray | undefined {
  for (let start = Math.max(0, at - found.before); start <= at; start++) {
    found.pattern.lastIndex = start;
    const match = found.pattern.exec(text);
    if (match && match.index + match[0].length > at) return match;
  }
  return undefined;
}

/**
 * Masks the secret-shaped values in `bytes` in place and returns their ranges, in order, overlapping
 * ones merged. `inside`: whether `bytes[0]` lies in a private-key block whose BEGIN line came earlier
 * (true), does not (false), or is not known ('unknown': an END line with no BEGIN before it then
 * masks everything before it).
 */
export function maskSecrets(bytes: Buffer, inside: boolean | 'unknown' = false): SecretRange[] {
  const ranges: SecretRange[] = [...urlPasswords(bytes)];
  const armour: { index: number; length: number; begin: boolean }[] = [];
  // The text is decoded a slice at a time: a string this small is made on V8's heap, a large one
  // in fresh memory the kernel must map page by page (sixteen times the cost here). Each slice's
  // string runs on past it by the longest match, and starts early enough for a lookbehind.
  for (let from = 0; from < bytes.length; from += TEXT_SLICE_BYTES) {
    const offset = Math.max(0, from - SECRET_LOOK_BEHIND_BYTES);
    const text = bytes.toString('latin1', offset, Math.min(bytes.length, from + TEXT_SLICE_BYTES + LONGEST_MATCH));
    const sliceEnd = from + TEXT_SLICE_BYTES - offset;
    ANCHORS.lastIndex = from - offset;
    for (let anchor = ANCHORS.exec(text); anchor && anchor.index < sliceEnd; anchor = ANCHORS.exec(text)) {
      const found = SHAPES[anchor.findIndex((group, index) => index > 0 && group !== undefined) - 1];
      const match = matchAt(text, found, anchor.index);
      if (!match) {
        // Anchors may overlap: `_auth` fails in `proxy_authorization`, whose `authorization` then
        // starts one byte later, inside what this anchor consumed.
        ANCHORS.lastIndex = anchor.index + 1;
        continue;
      }
      const [start, end] = [offset + match.index, offset + match.index + match[0].length];
      if (found === ARMOUR) armour.push({ index: start, length: end - start, begin: match[1] === 'BEGIN' });
      // The next anchor may lie inside this value: a token glued to the one before it.
      else ranges.push({ start: end - match[1].length, end, block: false, from: start });
    }
  }
  let open = inside === true ? 0 : -1;
  let openFrom = -1;
  let orphanEnds = inside === 'unknown';
  for (const line of armour) {
    if (line.begin) {
      if (open < 0) [open, openFrom] = [line.index + line.length, line.index];
    } else if (open >= 0) {
      ranges.push({ start: open, end: line.index, block: true, from: openFrom });
      open = -1;
    } else if (orphanEnds) {
      ranges.push({ start: 0, end: line.index, block: true, from: -1 });
    }
    orphanEnds = false;
  }
  if (open >= 0) ranges.push({ start: open, end: bytes.length, block: true, from: openFrom });
  for (const range of ranges) {
    for (let i = range.start; i < range.end; i++) if (bytes[i] > 0x20 && bytes[i] < 0x7f) bytes[i] = 0x2a;
  }
  return mergeRanges(ranges);
}

/** Ranges in order of their start, overlapping ones as one (a value two shapes both match is one value). */
export function mergeRanges(ranges: readonly SecretRange[]): SecretRange[] {
  const out: SecretRange[] = [];
  for (const range of ranges.filter((each) => each.end > each.start).sort((a, b) => a.start - b.start)) {
    const last = out[out.length - 1];
    if (last && range.start < last.end) {
      last.end = Math.max(last.end, range.end);
      last.block ||= range.block;
      last.from = last.from < 0 || range.from < 0 ? -1 : Math.min(last.from, range.from);
    } else {
      out.push({ ...range });
    }
  }
  return out;
}

/** The ranges that reach into [from, to). */
export const rangesWithin = (ranges: readonly SecretRange[], from: number, to: number): number =>
  ranges.filter((range) => range.start < to && range.end > from).length;

/** The sentence the tools add when they masked values. */
export function maskedNote(count: number, where: string): string {
  return `masked: ${count} secret-shaped value${count === 1 ? '' : 's'} ${where} (each byte shown as '*': lengths and byte offsets unchanged). Do not try to recover them; ask the user if a task needs one.`;
}
