/**
 * The --vscode-* variables VS Code sets on a webview's <html>, for the three theme kinds, with the
 * values of Dark Modern, Light Modern and Dark High Contrast (the subset the inspector uses, plus
 * the fonts). Served as a stylesheet so the page's CSP applies unchanged.
 */
export type ThemeName = 'dark' | 'light' | 'high-contrast';

export const BODY_CLASS: Record<ThemeName, string> = { dark: 'vscode-dark', light: 'vscode-light', 'high-contrast': 'vscode-high-contrast' };

const fonts = {
  'font-family': '-apple-system, BlinkMacSystemFont, "Segoe WPC", "Segoe UI", "Ubuntu", "Droid Sans", sans-serif',
  'font-size': '13px',
  'font-weight': 'normal',
  'editor-font-family': '"Droid Sans Mono", "DejaVu Sans Mono", monospace',
  'editor-font-size': '13px',
};

const ansiDark = {
  'terminal-ansiBlack': '#000000', 'terminal-ansiRed': '#cd3131', 'terminal-ansiGreen': '#0dbc79', 'terminal-ansiYellow': '#e5e510',
  'terminal-ansiBlue': '#2472c8', 'terminal-ansiMagenta': '#bc3fbc', 'terminal-ansiCyan': '#11a8cd', 'terminal-ansiWhite': '#e5e5e5',
  'terminal-ansiBrightBlack': '#666666', 'terminal-ansiBrightRed': '#f14c4c', 'terminal-ansiBrightGreen': '#23d18b', 'terminal-ansiBrightYellow': '#f5f543',
  'terminal-ansiBrightBlue': '#3b8eea', 'terminal-ansiBrightMagenta': '#d670d6', 'terminal-ansiBrightCyan': '#29b8db', 'terminal-ansiBrightWhite': '#e5e5e5',
};

const dark: Record<string, string> = {
  ...fonts, ...ansiDark,
  foreground: '#cccccc', 'editor-background': '#1f1f1f', 'editor-foreground': '#cccccc', descriptionForeground: '#9d9d9d', errorForeground: '#f85149',
  focusBorder: '#0078d4', 'button-background': '#0078d4', 'button-foreground': '#ffffff', 'button-hoverBackground': '#026ec1', 'button-border': '#ffffff12',
  'button-secondaryBackground': '#313131', 'button-secondaryForeground': '#cccccc', 'button-secondaryHoverBackground': '#3c3c3c',
  'input-background': '#313131', 'input-foreground': '#cccccc', 'input-border': '#3c3c3c', 'input-placeholderForeground': '#989898',
  'inputOption-activeBackground': '#2489db82', 'inputOption-activeBorder': '#2488db', 'inputOption-activeForeground': '#ffffff',
  'panel-border': '#2b2b2b', 'widget-border': '#313131', 'editorWidget-background': '#202020', 'widget-shadow': '#0000005c',
  'editorHoverWidget-background': '#202020', 'editorHoverWidget-foreground': '#cccccc', 'editorHoverWidget-border': '#454545',
  'editorWarning-foreground': '#cca700', 'inputValidation-warningBackground': '#352a05', 'inputValidation-warningBorder': '#b89500',
  'inputValidation-errorBackground': '#5a1d1d', 'inputValidation-errorBorder': '#be1100', 'testing-iconPassed': '#73c991',
  'editorLineNumber-foreground': '#6e7681', 'editorLineNumber-activeForeground': '#cccccc', 'editor-lineHighlightBorder': '#282828',
  'editor-findMatchHighlightBackground': '#ea5c0055', 'editor-findMatchBackground': '#9e6a03',
  'textCodeBlock-background': '#2b2b2b', 'textPreformat-foreground': '#d0d0d0', 'textPreformat-background': '#3c3c3c',
  'toolbar-hoverBackground': '#5a5d5e50', 'list-hoverBackground': '#2a2d2e', 'list-activeSelectionBackground': '#04395e', 'list-activeSelectionForeground': '#ffffff',
  'scrollbarSlider-background': '#79797966', 'sideBarSectionHeader-foreground': '#cccccc', 'editorWhitespace-foreground': '#e3e4e229',
};

const light: Record<string, string> = {
  ...fonts,
  'terminal-ansiBlack': '#000000', 'terminal-ansiRed': '#cd3131', 'terminal-ansiGreen': '#107c10', 'terminal-ansiYellow': '#949800',
  'terminal-ansiBlue': '#0451a5', 'terminal-ansiMagenta': '#bc05bc', 'terminal-ansiCyan': '#0598bc', 'terminal-ansiWhite': '#555555',
  'terminal-ansiBrightBlack': '#666666', 'terminal-ansiBrightRed': '#cd3131', 'terminal-ansiBrightGreen': '#14ce14', 'terminal-ansiBrightYellow': '#b5ba00',
  'terminal-ansiBrightBlue': '#0451a5', 'terminal-ansiBrightMagenta': '#bc05bc', 'terminal-ansiBrightCyan': '#0598bc', 'terminal-ansiBrightWhite': '#a5a5a5',
  foreground: '#3b3b3b', 'editor-background': '#ffffff', 'editor-foreground': '#3b3b3b', descriptionForeground: '#616161', errorForeground: '#e51400',
  focusBorder: '#005fb8', 'button-background': '#005fb8', 'button-foreground': '#ffffff', 'button-hoverBackground': '#0258a8', 'button-border': '#0000001a',
  'button-secondaryBackground': '#e5e5e5', 'button-secondaryForeground': '#3b3b3b', 'button-secondaryHoverBackground': '#cccccc',
  'input-background': '#ffffff', 'input-foreground': '#3b3b3b', 'input-border': '#cecece', 'input-placeholderForeground': '#767676',
  'inputOption-activeBackground': '#bed6ed', 'inputOption-activeBorder': '#005fb8', 'inputOption-activeForeground': '#000000',
  'panel-border': '#e5e5e5', 'widget-border': '#e5e5e5', 'editorWidget-background': '#f8f8f8', 'widget-shadow': '#00000029',
  'editorHoverWidget-background': '#f8f8f8', 'editorHoverWidget-foreground': '#3b3b3b', 'editorHoverWidget-border': '#c8c8c8',
  'editorWarning-foreground': '#bf8803', 'inputValidation-warningBackground': '#f6f5d2', 'inputValidation-warningBorder': '#b89500',
  'inputValidation-errorBackground': '#f2dede', 'inputValidation-errorBorder': '#be1100', 'testing-iconPassed': '#388a34',
  'editorLineNumber-foreground': '#6e7681', 'editorLineNumber-activeForeground': '#171184', 'editor-lineHighlightBorder': '#eeeeee',
  'editor-findMatchHighlightBackground': '#ea5c0055', 'editor-findMatchBackground': '#a8ac94',
  'textCodeBlock-background': '#f8f8f8', 'textPreformat-foreground': '#3b3b3b', 'textPreformat-background': '#0000001f',
  'toolbar-hoverBackground': '#b8b8b850', 'list-hoverBackground': '#f2f2f2', 'list-activeSelectionBackground': '#e8e8e8', 'list-activeSelectionForeground': '#000000',
  'scrollbarSlider-background': '#64646466', 'sideBarSectionHeader-foreground': '#3b3b3b', 'editorWhitespace-foreground': '#33333333',
};

const highContrast: Record<string, string> = {
  ...fonts, ...ansiDark,
  foreground: '#ffffff', 'editor-background': '#000000', 'editor-foreground': '#ffffff', descriptionForeground: '#ffffffb3', errorForeground: '#f48771',
  focusBorder: '#f38518', contrastBorder: '#6fc3df', contrastActiveBorder: '#f38518',
  'button-background': '#000000', 'button-foreground': '#ffffff', 'button-border': '#6fc3df',
  'button-secondaryBackground': '#000000', 'button-secondaryForeground': '#ffffff',
  'input-background': '#000000', 'input-foreground': '#ffffff', 'input-border': '#6fc3df', 'input-placeholderForeground': '#ffffffb3',
  'inputOption-activeBorder': '#6fc3df', 'inputOption-activeForeground': '#ffffff',
  'panel-border': '#6fc3df', 'widget-border': '#6fc3df', 'editorWidget-background': '#0c141f', 'editorHoverWidget-background': '#0c141f',
  'editorHoverWidget-foreground': '#ffffff', 'editorHoverWidget-border': '#6fc3df',
  'editorWarning-foreground': '#ffd370', 'inputValidation-warningBackground': '#000000', 'inputValidation-warningBorder': '#6fc3df',
  'inputValidation-errorBackground': '#000000', 'inputValidation-errorBorder': '#6fc3df', 'testing-iconPassed': '#73c991',
  'editorLineNumber-foreground': '#ffffff', 'editorLineNumber-activeForeground': '#f38518', 'editor-lineHighlightBorder': '#f38518',
  'editor-findMatchBorder': '#f38518', 'editor-findMatchHighlightBorder': '#f38518',
  'textCodeBlock-background': '#000000', 'textPreformat-foreground': '#ffffff',
  'list-activeSelectionForeground': '#ffffff', 'scrollbarSlider-background': '#6fc3df99', 'sideBarSectionHeader-foreground': '#ffffff',
  'editorWhitespace-foreground': '#7c7c7c',
};

const THEMES: Record<ThemeName, Record<string, string>> = { dark, light, 'high-contrast': highContrast };

export function themeCss(name: ThemeName): string {
  const vars = Object.entries(THEMES[name]).map(([key, value]) => `  --vscode-${key}: ${value};`).join('\n');
  return `html {\n${vars}\n}\n`;
}
