import type { Node, Parser, Tree } from "web-tree-sitter";
import { loadBashParser } from "./bash-wasm.js";

/** A bash parser. Parsing is synchronous; every decision function takes one of these. */
export type ShellParser = {
  /** Parses `script` and hands the root node to `use`; the tree is freed afterwards. */
  withTree<T>(script: string, use: (root: Node) => T): T;
};

class TreeSitterShell implements ShellParser {
  readonly #parser: Parser;

  constructor(parser: Parser) {
    this.#parser = parser;
  }

  withTree<T>(script: string, use: (root: Node) => T): T {
    const tree: Tree | null = this.#parser.parse(script);
    if (tree === null) throw new Error("tree-sitter returned no tree for a bash script");
    try {
      return use(tree.rootNode);
    } finally {
      tree.delete();
    }
  }
}

/** Thrown by `plainShell` when a script needs the parser after all. */
export class NeedsParser extends Error {
  constructor() {
    super("a bash script that is not plain reached the analysis without a parser (use shellParserFor)");
  }
}

/** The parser of a command whose scripts are all plain (plain-script.ts): it has nothing to parse. */
export const plainShell: ShellParser = {
  withTree() {
    throw new NeedsParser();
  },
};

let loading: Promise<ShellParser> | undefined;

/** Loads tree-sitter-bash once per process (with the first command, not with the agent); later calls get the same parser. */
export function loadShellParser(): Promise<ShellParser> {
  loading ??= loadBashParser().then(
    (parser) => new TreeSitterShell(parser),
    (error: unknown) => {
      loading = undefined; // let a later call try again
      throw error;
    },
  );
  return loading;
}

/**
 * Starts loading the parser in the background, for a task that may run commands: it loads while
 * the model writes its first reply instead of between a command's reply and the next request. A
 * failure is left for the first command's own loadShellParser to report.
 */
export function preloadShellParser(): void {
  loadShellParser().catch(() => undefined);
}
