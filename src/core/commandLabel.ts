/**
 * A command line named briefly, as a person would: a short one as it is, a long one by its program and
 * key argument (`awk '{…}' build.log` is "awk build.log", `npm run test -- --grep "…"` is "npm run test",
 * `bash -c "…"` is the inner command's name). Lists (the Retained Outputs tree, a running call, a session's name) show
 * it; tooltips and documents show the command whole. A heuristic over shell words, not a shell parser:
 * whatever it cannot read falls back to the line's start.
 */

/** Longest label, in UTF-16 units. */
export const COMMAND_LABEL_CHARS = 40;

/** Setup steps a command line starts with that say nothing of what it does. */
const SETUP = new Set(['cd', 'pushd', 'export', 'set', 'source', '.', 'true', 'unset', 'ulimit', 'umask']);
/** Words that run the command after them. */
const WRAPPERS = new Set(['sudo', 'time', 'env', 'nohup', 'exec', 'nice', 'command', 'stdbuf', 'timeout']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish']);
/** Programs whose first words are a subcommand (`git log`, `npm run test`, `docker compose up`). */
const SUBCOMMANDS = new Set([
  'npm',
  'pnpm',
  'yarn',
  'bun',
  'npx',
  'git',
  'cargo',
  'go',
  'docker',
  'podman',
  'kubectl',
  'make',
  'dotnet',
  'gradle',
  'mvn',
  'pip',
  'pip3',
  'poetry',
  'uv',
  'deno',
  'gh',
  'terraform',
  'helm',
  'brew',
  'apt',
  'apt-get',
  'systemctl',
  'rustup',
  'conda',
]);

interface Word {
  text: string;
  /** Written in quotes (a script, a pattern, a message): not a file or a subcommand. */
  quoted: boolean;
}

/** The command's label: the command itself when it is one short line, else its program and key argument; at most `max` characters. */
export function commandLabel(command: string, max = COMMAND_LABEL_CHARS): string {
  const whole = command.trim();
  return whole.length <= max && !whole.includes('\n') ? whole : clip(commandName(command), max);
}

/** The program and its key argument, however short the command (unclipped). */
export function commandName(command: string): string {
  return labelOf(command, 0) ?? firstLine(command);
}

/**
 * An output's label: a command line named briefly; any other title (a tool's, a hook's) by its first line,
 * clipped. Only a command is read as shell words.
 */
export function outputLabel(title: string, isCommand: boolean, max = COMMAND_LABEL_CHARS): string {
  return isCommand ? commandLabel(title, max) : clip(firstLine(title), max);
}

function labelOf(command: string, depth: number): string | undefined {
  const steps = split(command).filter((words) => words.length > 0);
  const main = steps.find((words) => !SETUP.has(words[0].text)) ?? steps[0];
  if (!main) return undefined;
  const label = stepLabel(main, depth);
  return label && steps.indexOf(main) < steps.length - 1 ? `${label} …` : label;
}

function stepLabel(all: Word[], depth: number): string | undefined {
  let words = all.filter((word, i) => !isRedirect(word) && !(i > 0 && isRedirect(all[i - 1]) && /^[<>&\d]*[<>]$/.test(all[i - 1].text)));
  while (words.length > 0 && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0].text) || WRAPPERS.has(words[0].text) || isOption(words[0]))) {
    words = words.slice(1);
  }
  if (words.length === 0) return undefined;
  const program = basename(words[0].text);
  const rest = words.slice(1);
  if (SHELLS.has(program)) {
    const script = rest.findIndex((word) => word.text === '-c' || /^-[a-z]*c$/.test(word.text));
    if (script >= 0 && rest[script + 1] && depth < 3) return labelOf(rest[script + 1].text, depth + 1) ?? program;
  }
  const end = rest.findIndex((word) => word.text === '--');
  const args = (end >= 0 ? rest.slice(0, end) : rest).filter((word, i, list) => !isOption(word) && !isOptionValue(word, list[i - 1]));
  const plain = args.filter((word) => !isScript(word));
  if (SUBCOMMANDS.has(program)) {
    const sub = plain.slice(0, plain[0]?.text === 'run' || plain[0]?.text === 'exec' || program === 'npx' ? 2 : 1);
    return [program, ...sub.map((word) => shortPath(word.text))].join(' ');
  }
  // A script (awk, jq, python -c) is left out: the file it reads says more. Of many words, the first and the last.
  const key = plain.length > 2 ? [plain[0], plain[plain.length - 1]] : plain;
  return [program, ...key.map((word) => shortPath(word.text))].join(' ');
}

/** A quoted program (`'{ print $3 }'`, `"import sys; …"`), not a word a label can name. */
const isScript = (word: Word): boolean => word.quoted && (/[{}$();|<>`=\\\n]/.test(word.text) || word.text.length > 30);
const isOption = (word: Word): boolean => !word.quoted && /^--?[A-Za-z]/.test(word.text);
/** `-n 100`: a number after a short option is its value. */
const isOptionValue = (word: Word, before: Word | undefined): boolean =>
  !!before && isOption(before) && !before.text.startsWith('--') && /^\d+$/.test(word.text);
const isRedirect = (word: Word): boolean => !word.quoted && /^(\d*|&)(>>?|<)/.test(word.text);
const basename = (path: string): string => path.slice(path.lastIndexOf('/') + 1) || path;
/** A long path by its last two parts. */
const shortPath = (text: string): string => (text.length > 24 && text.includes('/') ? text.split('/').slice(-2).join('/') : text);

/** Shell words by step: split at unquoted `|`, `&&`, `||`, `;`, `&` and new lines. */
function split(command: string): Word[][] {
  const steps: Word[][] = [[]];
  let text = '';
  let quoted = false;
  let started = false;
  let nesting = 0;
  const endWord = (): void => {
    if (started) steps[steps.length - 1].push({ text, quoted });
    text = '';
    quoted = false;
    started = false;
  };
  for (let i = 0; i < command.length; i++) {
    const c = command[i];
    if (nesting > 0) {
      text += c;
      if (c === '(') nesting++;
      else if (c === ')') nesting--;
    } else if (c === "'" || c === '"') {
      const close = command.indexOf(c, i + 1);
      const end = close < 0 ? command.length : close;
      text += command.slice(i + 1, end);
      quoted = started = true;
      i = end;
    } else if (c === '\\' && i + 1 < command.length) {
      text += command[++i];
      started = true;
    } else if (c === '$' && command[i + 1] === '(') {
      text += '$(';
      nesting = 1;
      started = true;
      i++;
    } else if (c === ' ' || c === '\t') {
      endWord();
    } else if (c === '|' || c === ';' || c === '\n' || (c === '&' && command[i + 1] !== '>' && command[i - 1] !== '>')) {
      endWord();
      if (command[i + 1] === c) i++;
      steps.push([]);
    } else {
      text += c;
      started = true;
    }
  }
  endWord();
  return steps;
}

function firstLine(command: string): string {
  return (
    command
      .split('\n')
      .find((line) => line.trim())
      ?.trim() ?? command.trim()
  );
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
