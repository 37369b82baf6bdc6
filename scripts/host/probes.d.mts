// Types of the probes that TypeScript suites call directly (test/browser uses the same measurement).
export interface SliderToPaintResult {
  /** Input to painted page per position, ms; null when its page did not arrive within pageLimitMs (10 s). */
  times: (number | null)[];
  /** Per arrived page: to the page in the DOM, then to the frame after it (ms). */
  parts: { toDom: number; frame: number }[];
  /** Lines of the last page shown. */
  lines: number;
  /** The webview document's visibilityState at the end ('hidden' explains pages that never painted). */
  visibility: string;
}

/** What `sideViewLayout` measures (test/browser/sideView.test.ts and test/integration/sideViewLayout.test.ts assert on it). */
export interface SideViewLayout {
  view: { width: number; height: number };
  docOverflow: number;
  scrollers: string[];
  nested: string[];
  /** With the document scrolled to the page of the copy: the pager's head's top, and the text below it to the view's bottom. */
  headTop: number;
  pageVisible: number;
  placeholder: { text: string; width: number; room: number };
  clipped: string[];
}

export declare const PROBES: {
  sideViewLayout(): SideViewLayout;
  sliderToPaint(arg: { positions: number[]; css?: string; pageLimitMs?: number; frameLimitMs?: number }): Promise<SliderToPaintResult>;
  count(selector: string): number;
  [name: string]: (arg: never) => unknown;
};

export interface PaintFigures {
  values: { runs: number; lost: number; median: number; p95: number; max: number };
  summary: string;
}

export declare function paintFigures(times: (number | null)[]): PaintFigures;
