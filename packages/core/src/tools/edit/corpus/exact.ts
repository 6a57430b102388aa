import { block, blocks, type EditCase } from "./types.js";

const ts = `import { a } from "./a.js";

export function run(): number {
  const x = a();
  return x + 1;
}

export function stop(): void {
  console.log("stop");
}
`;

/** Exact matches: replacing, inserting, deleting, moving, several blocks in and out of order. */
export const exactCases: EditCase[] = [
  {
    name: "exact: one line",
    file: ts,
    diff: block("  return x + 1;", "  return x + 2;"),
    expect: ts.replace("x + 1", "x + 2"),
  },
  {
    name: "exact: several lines",
    file: ts,
    diff: block("export function stop(): void {\n  console.log(\"stop\");\n}", "export function stop(): void {}"),
    expect: ts.replace('export function stop(): void {\n  console.log("stop");\n}', "export function stop(): void {}"),
  },
  {
    name: "exact: REPLACE longer than SEARCH",
    file: ts,
    diff: block("  const x = a();", "  const x = a();\n  if (x < 0) {\n    throw new Error(\"negative\");\n  }"),
    expect: ts.replace("  const x = a();\n", '  const x = a();\n  if (x < 0) {\n    throw new Error("negative");\n  }\n'),
  },
  {
    name: "exact: two blocks in file order",
    file: ts,
    diff: blocks(['import { a } from "./a.js";', 'import { a, b } from "./a.js";'], ["  return x + 1;", "  return x + b();"]),
    expect: ts.replace("{ a }", "{ a, b }").replace("x + 1", "x + b()"),
  },
  {
    name: "exact: three blocks in file order",
    file: ts,
    diff: blocks(["export function run(): number {", "export function run(): bigint {"], ["  return x + 1;", "  return BigInt(x);"], ['  console.log("stop");', '  console.info("stop");']),
    expect: ts.replace("run(): number", "run(): bigint").replace("return x + 1;", "return BigInt(x);").replace("console.log", "console.info"),
  },
  {
    name: "exact: the first line of the file",
    file: ts,
    diff: block('import { a } from "./a.js";', 'import { a } from "./lib/a.js";'),
    expect: ts.replace("./a.js", "./lib/a.js"),
  },
  {
    name: "exact: the last line of the file keeps the final newline",
    file: ts,
    diff: block('  console.log("stop");\n}', '  console.log("stop");\n} // end'),
    expect: ts.replace(/}\n$/, "} // end\n"),
  },
  {
    name: "exact: SEARCH is the whole file",
    file: "one\ntwo\n",
    diff: block("one\ntwo", "uno\ndos\ntres"),
    expect: "uno\ndos\ntres\n",
  },
  {
    name: "exact: SEARCH with a blank line inside",
    file: ts,
    diff: block("}\n\nexport function stop(): void {", "}\n\n/** Stops. */\nexport function stop(): void {"),
    expect: ts.replace("}\n\nexport function stop", "}\n\n/** Stops. */\nexport function stop"),
  },
  {
    name: "insert at the top via the first line as anchor",
    file: ts,
    diff: block('import { a } from "./a.js";', '#!/usr/bin/env node\nimport { a } from "./a.js";'),
    expect: `#!/usr/bin/env node\n${ts}`,
  },
  {
    name: "insert at the bottom via the last lines as anchor",
    file: ts,
    diff: block('  console.log("stop");\n}', '  console.log("stop");\n}\n\nexport const VERSION = 1;'),
    expect: `${ts}\nexport const VERSION = 1;\n`,
  },
  {
    name: "insert in the middle",
    file: "a\nb\nc\n",
    diff: block("b", "b\nb2"),
    expect: "a\nb\nb2\nc\n",
  },
  {
    name: "delete: empty REPLACE removes the lines and their newlines",
    file: ts,
    diff: block("  const x = a();\n  return x + 1;", ""),
    expect: ts.replace("  const x = a();\n  return x + 1;\n", ""),
  },
  {
    name: "delete: the first line",
    file: "a\nb\nc\n",
    diff: block("a", ""),
    expect: "b\nc\n",
  },
  {
    name: "delete: the last line (file ends with a newline)",
    file: "a\nb\nc\n",
    diff: block("c", ""),
    expect: "a\nb\n",
  },
  {
    name: "delete: the last line of a file without final newline keeps it without one",
    file: "a\nb\nc",
    diff: block("c", ""),
    expect: "a\nb",
  },
  {
    name: "delete: every line empties the file",
    file: "a\nb\n",
    diff: block("a\nb", ""),
    expect: "",
  },
  {
    name: "move code with two blocks: delete it, insert it elsewhere",
    file: "function b() {}\nfunction a() {}\nrun();\n",
    diff: blocks(["function b() {}", ""], ["function a() {}", "function a() {}\nfunction b() {}"]),
    expect: "function a() {}\nfunction b() {}\nrun();\n",
  },
  {
    name: "fragment: an exact piece of a line that occurs once",
    file: "line1\nline2\nline3\n",
    diff: block("ne2", "NE-TWO"),
    expect: "line1\nliNE-TWO\nline3\n",
  },
  {
    name: "fragment: text spanning the end of one line and the start of the next",
    file: "const r = foo(a,\n  b);\n",
    diff: block("foo(a,\n  b)", "foo(a, b)"),
    expect: "const r = foo(a, b);\n",
  },
  {
    name: "fragment: two blocks editing different parts of the same line",
    file: "let a = b + c;\n",
    diff: blocks(["= b", "= B"], ["c;", "C;"]),
    expect: "let a = B + C;\n",
  },
  {
    name: "SEARCH padded with a blank line the file lacks there matches the lines between",
    file: "x\nfoo\nbar\n",
    diff: "------- SEARCH\n\nfoo\n\n=======\n\nFOO\n\n+++++++ REPLACE",
    expect: "x\nFOO\nbar\n",
  },
  {
    name: "SEARCH padded with a blank line, REPLACE not: the lines around are never joined",
    file: "x\nfoo\nbar\n",
    diff: "------- SEARCH\nfoo\n\n=======\nFOO\n+++++++ REPLACE",
    expect: "x\nFOO\nbar\n",
  },
  {
    name: "a blank SEARCH line the file does have is matched exactly (and REPLACE without it deletes it)",
    file: "foo\n\nbar\n",
    diff: "------- SEARCH\nfoo\n\n=======\nFOO\n+++++++ REPLACE",
    expect: "FOO\nbar\n",
  },
  {
    name: "REPLACE equal to SEARCH leaves the content as it is",
    file: ts,
    diff: block("  return x + 1;", "  return x + 1;"),
    expect: ts,
  },
  {
    name: "out of order: two blocks, last first",
    file: ts,
    diff: blocks(['  console.log("stop");', '  console.log("halt");'], ['import { a } from "./a.js";', 'import { a } from "./b.js";']),
    expect: ts.replace("stop\")", "halt\")").replace("./a.js", "./b.js"),
  },
  {
    name: "out of order: three blocks shuffled (3, 1, 2)",
    file: "one\ntwo\nthree\nfour\nfive\n",
    diff: blocks(["five", "5"], ["one", "1"], ["three", "3"]),
    expect: "1\ntwo\n3\nfour\n5\n",
  },
  {
    name: "out of order with whitespace drift (Cline fails here)",
    file: "a = 1   \nb = 2\nc = 3\t\n",
    diff: blocks(["c = 3", "c = 30"], ["a = 1", "a = 10"]),
    expect: "a = 10\nb = 2\nc = 30\n",
  },
  {
    name: "out of order with indentation drift",
    file: "class K {\n    m() {\n        one();\n    }\n    n() {\n        two();\n    }\n}\n",
    diff: blocks(["two();", "two();\nthree();"], ["one();", "uno();"]),
    expect: "class K {\n    m() {\n        uno();\n    }\n    n() {\n        two();\n        three();\n    }\n}\n",
  },
  {
    name: "blocks on adjacent lines are not an overlap",
    file: "a\nb\nc\n",
    diff: blocks(["a", "A"], ["b", "B"], ["c", "C"]),
    expect: "A\nB\nC\n",
  },
];
