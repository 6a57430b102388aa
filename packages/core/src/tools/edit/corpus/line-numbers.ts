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

/** The file as read_file shows it with line_numbers (width 2: " 1 | " .. "10 | "); the empty lines lost their trailing space. */
const shown = (from: number, to: number): string =>
  ts
    .split("\n")
    .slice(from - 1, to)
    .map((line, i) => `${String(from + i).padStart(2)} |${line === "" ? "" : ` ${line}`}`)
    .join("\n");

/** SEARCH blocks pasted from read_file with Cairn's own "N | " line numbers, and files whose text only looks like that. */
export const lineNumberCases: EditCase[] = [
  {
    name: "line numbers: SEARCH and REPLACE pasted with read_file's numbers apply as meant",
    file: ts,
    diff: block(shown(4, 5), " 4 |   const x = a();\n 5 |   return x + 2;"),
    expect: ts.replace("x + 1", "x + 2"),
  },
  {
    name: "line numbers: right-aligned numbers across 9/10 and empty lines that lost their trailing space",
    file: ts,
    diff: block(shown(7, 10), ' 7 |\n 8 | export function stop(): void {\n 9 |   console.info("stop");\n10 | }'),
    expect: ts.replace("console.log", "console.info"),
  },
  {
    name: "line numbers: REPLACE lines the model wrote itself carry none, and keep their text",
    file: ts,
    diff: block(shown(4, 5), " 4 |   const x = a();\n  if (x < 0) return 0;\n 5 |   return x + 1;"),
    expect: ts.replace("  const x = a();\n", "  const x = a();\n  if (x < 0) return 0;\n"),
  },
  {
    name: "line numbers: a numbered SEARCH with a plain REPLACE",
    file: ts,
    diff: block(shown(9, 9), '  console.warn("stop");'),
    expect: ts.replace("console.log", "console.warn"),
  },
  {
    name: "line numbers: a numbered block and a plain block in one diff",
    file: ts,
    diff: blocks([shown(1, 1), ' 1 | import { a } from "./lib/a.js";'], ["  return x + 1;", "  return x - 1;"]),
    expect: ts.replace("./a.js", "./lib/a.js").replace("x + 1", "x - 1"),
  },
  {
    name: "line numbers: drifted indentation still matches once they are taken off, and REPLACE is re-indented",
    file: ts,
    diff: block(" 4 | const x = a();\n 5 | return x + 1;", " 4 | const y = a();\n 5 | return y + 1;"),
    expect: ts.replace("const x = a();\n  return x + 1;", "const y = a();\n  return y + 1;"),
  },
  {
    name: "line numbers: a file whose own lines read '2 | b' is matched as written first",
    file: "1 | a\n2 | b\nb\n",
    diff: block("2 | b", "2 | B"),
    expect: "1 | a\n2 | B\nb\n",
  },
  {
    name: "line numbers: a file of numbered-looking lines keeps its prefixes in REPLACE when SEARCH matched as written",
    file: "10 | ten\n11 | eleven\n",
    diff: block("10 | ten\n11 | eleven", "10 | TEN\n11 | eleven"),
    expect: "10 | TEN\n11 | eleven\n",
  },
  {
    name: "line numbers: numbers that are not consecutive are not taken off",
    file: ts,
    diff: block(" 4 |   const x = a();\n 9 |   return x + 1;", "  return 0;"),
    expect: { error: ["its SEARCH matches nothing in file.txt", " 9 |   return x + 1;"] },
  },
  {
    name: "line numbers: a SEARCH where only some lines are numbered is not changed",
    file: ts,
    diff: block(" 4 |   const x = a();\n  return x + 1;", "  return 0;"),
    expect: { error: ["its SEARCH matches nothing in file.txt"] },
  },
  {
    name: "line numbers: taken off, a SEARCH that fits two places is refused",
    file: "a\nb\nx\na\nb\n",
    diff: block("1 | a\n2 | b", "1 | A\n2 | b"),
    expect: { error: ["matches 2 places exactly (lines 1-2 and 4-5)"] },
  },
  {
    name: "line numbers: numbered lines that match nothing even without the numbers say so",
    file: ts,
    diff: block(" 4 |   const z = b();", "  const z = c();"),
    expect: { error: ['or without the "N | " line numbers its lines start with (they are not part of the file)'] },
  },
];
