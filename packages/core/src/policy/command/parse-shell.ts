import { createRequire } from "node:module";
import type { Node, Parser, Tree } from "web-tree-sitter";

// Resolved from this module, so the same code finds the wasm files from src, from dist and from
// an installed @cairn/core. (tools/code-outline has its own loader; web-tree-sitter caches its
// runtime module, so both may call Parser.init.)
const require = createRequire(import.meta.url);

/** A loaded bash parser. Parsing is synchronous; every decision function takes one of these. */
export class ShellParser {
  readonly #parser: Parser;

  constructor(parser: Parser) {
    this.#parser = parser;
  }

  /** Parses `script` and hands the root node to `use`; the tree is freed afterwards. */
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

let loading: Promise<ShellParser> | undefined;

/** Loads tree-sitter-bash once per process; later calls get the same parser. */
export function loadShellParser(): Promise<ShellParser> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined; // let a later call try again
    throw error;
  });
  return loading;
}

async function load(): Promise<ShellParser> {
  const { Language, Parser } = await import("web-tree-sitter"); // with the first command, not with the agent
  await Parser.init({ locateFile: () => require.resolve("web-tree-sitter/web-tree-sitter.wasm") });
  const language = await Language.load(require.resolve("@vscode/tree-sitter-wasm/wasm/tree-sitter-bash.wasm"));
  const parser = new Parser();
  parser.setLanguage(language);
  return new ShellParser(parser);
}
