/** What merging one server into an agent's configuration file gives. */
export type ConfigMerge =
  | {
      ok: true;
      /** create: no file yet; add: a file without the server; replace: the server's entry differs; unchanged: nothing to write. */
      change: 'create' | 'add' | 'replace' | 'unchanged';
      /** The whole new file. */
      text: string;
      /** The other servers in the file, kept as they are. */
      others: string[];
    }
  | {
      ok: false;
      /** Why the file is left alone, completing "The file … is left as it is: …". */
      problem: string;
    };
