/** The messages between the entry (front.ts, the main thread) and the stdio server in its worker (stdioWorker.ts). */

/** From the entry: a chunk of stdin, stdin's end, or a request to stop (a signal). */
export type FromFront = { kind: 'in'; data: Buffer } | { kind: 'end' } | { kind: 'stop'; why: string };

/** From the server: one message for stdout, that the server now answers everything, or that it has closed and the program ends with `code`. */
export type ToFront = { kind: 'out'; data: string } | { kind: 'ready' } | { kind: 'exit'; code: number };
