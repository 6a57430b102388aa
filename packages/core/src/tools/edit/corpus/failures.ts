import { block, blocks, numbered, type EditCase } from "./types.js";

const dup = "function a() {\n  return 1;\n}\nfunction b() {\n  return 1;\n}\n";
const big = numbered(300, "row");

/** Edits that must be refused with a message that lets the next try succeed, and empty SEARCH. */
export const failureCases: EditCase[] = [
  {
    name: "ambiguous: an exact SEARCH that occurs twice is refused (Cline takes the first)",
    file: dup,
    diff: block("  return 1;\n}", "  return 2;\n}"),
    expect: { error: ["block 1 of 1 failed", "matches 2 places exactly (lines 2-3 and 5-6)", "Add lines before or after", "------- SEARCH\n  return 1;\n}\n======="] },
  },
  {
    name: "ambiguous: a SEARCH that fits two places ignoring whitespace is refused",
    file: "if (a) {\n    go();\n}\nif (b) {\n  go();\n}\n",
    diff: block("go();", "stop();"),
    expect: { error: ["matches 2 places when ignoring leading/trailing whitespace (lines 2 and 5)"] },
  },
  {
    name: "ambiguous: a fragment that occurs in two lines is refused",
    file: "let total = sum;\nlet subtotal = sum;\n",
    diff: block("total = sum", "total = sum + tax"),
    expect: { error: ["matches 2 places as text within lines (lines 1 and 2)"] },
  },
  {
    name: "anchor only: first and last lines match but the middle differs, so nothing matches",
    file: "function f() {\n  keep();\n  keep2();\n}\n",
    diff: block("function f() {\n  totally();\n  different();\n}", "function f() {}"),
    expect: { error: ["its SEARCH matches nothing in file.txt", "  totally();", "The current content of file.txt (4 lines"] },
  },
  {
    name: "anchor only: same line count, ends match, middle of a longer block differs",
    file: "<div>\n  <p>one</p>\n  <p>two</p>\n  <p>three</p>\n</div>\n",
    diff: block("<div>\n  <p>one</p>\n  <p>TWO</p>\n  <p>three</p>\n</div>", "<div></div>"),
    expect: { error: ["matches nothing", "The closest region of the file is lines 1-5"] },
  },
  {
    name: "overlap: two blocks sharing a line are refused, not merged",
    file: "a\nb\nc\nd\n",
    diff: blocks(["a\nb\nc", "A\nB\nC"], ["c\nd", "C\nD"]),
    expect: { error: ["block 2 of 2 failed", "Block 2 overlaps block 1: block 2 matches lines 3-4, which shares text with block 1 (lines 1-3)"] },
  },
  {
    name: "overlap: the same block twice",
    file: "a\nb\n",
    diff: blocks(["a", "x"], ["a", "y"]),
    expect: { error: ["Block 2 overlaps block 1"] },
  },
  {
    name: "overlap: a fragment inside a line another block replaces",
    file: "const x = 1;\nconst y = 2;\n",
    diff: blocks(["const x = 1;", "const x = 10;"], ["x = 1", "x = 100"]),
    expect: { error: ["Block 2 overlaps block 1"] },
  },
  {
    name: "no match: the message quotes the SEARCH and shows the whole small file with line numbers",
    file: "def run():\n    start()\n    finish()\n",
    diff: block("def run():\n    begin()", "def run():\n    begin(fast=True)"),
    expect: {
      error: [
        "Block 1: its SEARCH matches nothing in file.txt",
        "------- SEARCH\ndef run():\n    begin()\n=======",
        "The closest region of the file is lines 1-2",
        "1 | def run():\n2 |     start()\n3 |     finish()",
      ],
    },
  },
  {
    name: "no match in a large file: only the closest region is shown, with line numbers",
    file: big,
    diff: block("row 150\nrow 151 changed\nrow 152", "x"),
    expect: { error: [/closest region of the file is lines 150-152 \(\d+% similar\)/, "147 | row 147", "155 | row 155", /^(?![\s\S]*\n100 \| row 100)/] },
  },
  {
    name: "no match on one of three blocks: nothing is applied and the failing block is named",
    file: "a\nb\nc\n",
    diff: blocks(["a", "A"], ["zzz", "Z"], ["c", "C"]),
    expect: { error: ["block 2 of 3 failed", "no block was applied, not even the ones that matched", "with all 3 blocks"] },
  },
  {
    name: "no match on two blocks: both are reported",
    file: "a\nb\nc\n",
    diff: blocks(["x", "X"], ["b", "B"], ["y", "Y"]),
    expect: { error: ["blocks 1 and 3 of 3 failed", "Block 1: its SEARCH matches nothing", "Block 3: its SEARCH matches nothing"] },
  },
  {
    name: "empty SEARCH on an empty file writes the REPLACE content",
    file: "",
    diff: block("", "export const a = 1;\nexport const b = 2;"),
    expect: "export const a = 1;\nexport const b = 2;\n",
  },
  {
    name: "empty SEARCH on a file holding only a BOM keeps the BOM",
    file: "\uFEFF",
    diff: block("", "x"),
    expect: "\uFEFFx\n",
  },
  {
    name: "empty SEARCH and empty REPLACE on an empty file change nothing",
    file: "",
    diff: block("", ""),
    expect: "",
  },
  {
    name: "empty SEARCH on a non-empty file is refused, suggesting an anchor or write_to_file",
    file: "a\n",
    diff: block("", "b"),
    expect: { error: ["has an empty SEARCH, but file.txt is not empty (1 line)", "write_to_file", "put the lines next to the insertion point in SEARCH"] },
  },
  {
    name: "a SEARCH of blank lines only is refused on a non-empty file",
    file: "a\n\nb\n",
    diff: "------- SEARCH\n\n=======\nx\n+++++++ REPLACE",
    expect: { error: ["has a SEARCH of only blank lines"] },
  },
  {
    name: "two empty-SEARCH blocks on an empty file are refused",
    file: "",
    diff: blocks(["", "a"], ["", "b"]),
    expect: { error: ["Block 2 also has an empty SEARCH"] },
  },
  {
    name: "no match in an empty file says it is empty",
    file: "",
    diff: block("a", "b"),
    expect: { error: ["file.txt is empty: use a block with an empty SEARCH to fill it"] },
  },
];
