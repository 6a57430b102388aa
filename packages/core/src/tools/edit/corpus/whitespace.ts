import { block, blocks, type EditCase } from "./types.js";

const py = `class Greeter:
    def __init__(self, name):
        self.name = name

    def greet(self):
        if self.name:
            return "hi " + self.name
        return "hi"
`;

const tabbed = "func main() {\n\tif ok {\n\t\trun()\n\t}\n}\n";

/** Whitespace and indentation drift between SEARCH and the file, and how REPLACE is re-indented. */
export const whitespaceCases: EditCase[] = [
  {
    name: "whitespace: trailing spaces in the file, none in SEARCH",
    file: "let a = 1;   \nlet b = 2;  \nlet c = 3;\n",
    diff: block("let a = 1;\nlet b = 2;", "let a = 10;\nlet b = 20;"),
    expect: "let a = 10;\nlet b = 20;\nlet c = 3;\n",
  },
  {
    name: "whitespace: trailing spaces in SEARCH, none in the file",
    file: "let a = 1;\nlet b = 2;\n",
    diff: block("let b = 2;    ", "let b = 3;"),
    expect: "let a = 1;\nlet b = 3;\n",
  },
  {
    name: "whitespace: a tab inside a line where SEARCH has a space",
    file: "int\tcount = 0;\nint total = 0;\n",
    diff: block("int count = 0;", "long count = 0;"),
    expect: "long count = 0;\nint total = 0;\n",
  },
  {
    name: "whitespace: runs of spaces inside lines",
    file: "x    = 1\ny    = 2\n",
    diff: block("x = 1\ny = 2", "x = 1\ny = 3"),
    expect: "x = 1\ny = 3\n",
  },
  {
    name: "whitespace: trailing-space drift only keeps REPLACE exactly as written",
    file: "  keep();  \n  drop();\n",
    diff: block("  keep();\n  drop();", "  keep();"),
    expect: "  keep();\n",
  },
  {
    name: "indentation: SEARCH at column 0, file indented; REPLACE re-indented",
    file: py,
    diff: block('if self.name:\n    return "hi " + self.name', 'if self.name:\n    return f"hi {self.name}"\nif self.nick:\n    return "yo"'),
    expect: py.replace(
      '            return "hi " + self.name\n',
      '            return f"hi {self.name}"\n        if self.nick:\n            return "yo"\n',
    ),
  },
  {
    name: "indentation: SEARCH indented more than the file; REPLACE dedented",
    file: "def f():\n    return 1\n\nx = f()\n",
    diff: block("        def f():\n            return 1", "        def f():\n            return 2"),
    expect: "def f():\n    return 2\n\nx = f()\n",
  },
  {
    name: "indentation: 2-space SEARCH in a 4-space file; a new deeper level is scaled",
    file: "fn() {\n    if (a) {\n        b();\n    }\n}\n",
    diff: block("  if (a) {\n    b();\n  }", "  if (a) {\n    b();\n    if (c) {\n      d();\n    }\n  }"),
    expect: "fn() {\n    if (a) {\n        b();\n        if (c) {\n            d();\n        }\n    }\n}\n",
  },
  {
    name: "indentation: spaces in SEARCH, tabs in the file; REPLACE written with tabs",
    file: tabbed,
    diff: block("    if ok {\n        run()\n    }", "    if ok {\n        run()\n        log()\n    }"),
    expect: "func main() {\n\tif ok {\n\t\trun()\n\t\tlog()\n\t}\n}\n",
  },
  {
    name: "indentation: tabs in SEARCH, spaces in the file; REPLACE written with spaces",
    file: "a:\n  b:\n    c: 1\n",
    diff: block("\tb:\n\t\tc: 1", "\tb:\n\t\tc: 2\n\t\td: 3"),
    expect: "a:\n  b:\n    c: 2\n    d: 3\n",
  },
  {
    name: "indentation: blank REPLACE lines stay blank when re-indenting",
    file: "class A {\n  x() {}\n}\n",
    diff: block("x() {}", "x() {}\n\ny() {}"),
    expect: "class A {\n  x() {}\n\n  y() {}\n}\n",
  },
  {
    name: "whitespace drift is resolved among similar lines when only one fits",
    file: "  a();\n  a(); // twice\n  b();\n",
    diff: block("a(); // twice", "a(); // once"),
    expect: "  a();\n  a(); // once\n  b();\n",
  },
  {
    name: "whitespace: an exact match wins over a place that only matches ignoring whitespace",
    file: "x = 1\n  x = 1\n",
    diff: block("  x = 1", "  x = 2"),
    expect: "x = 1\n  x = 2\n",
  },
  {
    name: "indentation drift with several blocks, each re-indented on its own",
    file: "if a:\n    if b:\n        c()\nd()\n",
    diff: blocks(["c()", "c()\ne()"], ["d()", "f()"]),
    expect: "if a:\n    if b:\n        c()\n        e()\nf()\n",
  },
];
