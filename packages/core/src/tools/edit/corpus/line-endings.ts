import { block, blocks, type EditCase } from "./types.js";

const BOM = "\uFEFF";
const crlf = (text: string): string => text.replaceAll("\n", "\r\n");

/** Line endings, byte-order marks, final newlines and non-ASCII text survive every edit. */
export const lineEndingCases: EditCase[] = [
  {
    name: "CRLF file, SEARCH/REPLACE written with LF: the result is all CRLF",
    file: crlf("one\ntwo\nthree\n"),
    diff: block("two", "2\n2.5"),
    expect: crlf("one\n2\n2.5\nthree\n"),
  },
  {
    name: "CRLF file, diff written with CRLF",
    file: crlf("one\ntwo\nthree\n"),
    diff: crlf(block("one\ntwo", "uno\ndos")),
    expect: crlf("uno\ndos\nthree\n"),
  },
  {
    name: "CRLF file: deleting lines removes their CRLF",
    file: crlf("a\nb\nc\n"),
    diff: block("b", ""),
    expect: crlf("a\nc\n"),
  },
  {
    name: "CRLF file: a fragment edit with a multi-line replacement uses CRLF",
    file: crlf("call(a, b);\nnext();\n"),
    diff: block("a, b", "\n  a,\n  b,\n"),
    expect: crlf("call(\n  a,\n  b,\n);\nnext();\n"),
  },
  {
    name: "CRLF file with whitespace drift and several blocks",
    file: crlf("  x = 1  \n  y = 2\n  z = 3\n"),
    diff: blocks(["z = 3", "z = 30"], ["x = 1", "x = 10\nw = 0"]),
    expect: crlf("  x = 10\n  w = 0\n  y = 2\n  z = 30\n"),
  },
  {
    name: "UTF-8 BOM is kept",
    file: `${BOM}first\nsecond\n`,
    diff: block("first", "1st"),
    expect: `${BOM}1st\nsecond\n`,
  },
  {
    name: "CRLF + BOM are both kept",
    file: `${BOM}${crlf("a\nb\n")}`,
    diff: block("a\nb", "a\nB\nc"),
    expect: `${BOM}${crlf("a\nB\nc\n")}`,
  },
  {
    name: "CRLF + BOM + no final newline, editing the last line",
    file: `${BOM}${crlf("a\nb")}`,
    diff: block("b", "b\nz"),
    expect: `${BOM}${crlf("a\nb\nz")}`,
  },
  {
    name: "no final newline: editing the last line keeps it without one",
    file: "a\nlast",
    diff: block("last", "final"),
    expect: "a\nfinal",
  },
  {
    name: "no final newline: editing the middle leaves the end alone",
    file: "a\nb\nc",
    diff: block("b", "B"),
    expect: "a\nB\nc",
  },
  {
    name: "final newline present: replacing the last line keeps it",
    file: "a\nb\n",
    diff: block("b", "c\nd"),
    expect: "a\nc\nd\n",
  },
  {
    name: "mixed endings: untouched lines keep theirs, new lines follow the line they replace",
    file: "lf1\ncrlf1\r\nlf2\ncrlf2\r\n",
    diff: blocks(["crlf1", "crlf1\nadded"], ["lf2", "lf2b"]),
    expect: "lf1\ncrlf1\r\nadded\r\nlf2b\ncrlf2\r\n",
  },
  {
    name: "a lone CR inside a line is content, not a line break",
    file: "progress\r50%\nend\n",
    diff: block("end", "done"),
    expect: "progress\r50%\ndone\n",
  },
  {
    name: "unicode: multi-byte text",
    file: "挨拶 = \"こんにちは\"\n名前 = \"世界\"\n",
    diff: block('名前 = "世界"', '名前 = "地球"'),
    expect: '挨拶 = "こんにちは"\n名前 = "地球"\n',
  },
  {
    name: "unicode: emoji (surrogate pairs) in SEARCH and REPLACE",
    file: "status = \"🚀 launching\"\nmood = \"🙂\"\n",
    diff: block('mood = "🙂"', 'mood = "🎉🎉"'),
    expect: 'status = "🚀 launching"\nmood = "🎉🎉"\n',
  },
  {
    name: "unicode: an emoji fragment of a line",
    file: "a 👍 b\n",
    diff: block("👍", "👎"),
    expect: "a 👎 b\n",
  },
  {
    name: "unicode: combining marks matched exactly",
    file: "cafe\u0301 = 1\nnai\u0308ve = 2\n",
    diff: block("nai\u0308ve = 2", "nai\u0308ve = 3"),
    expect: "cafe\u0301 = 1\nnai\u0308ve = 3\n",
  },
  {
    name: "unicode: composed SEARCH finds decomposed file text; other lines keep their form",
    file: "cafe\u0301 = 1\nresume\u0301 = 2\n",
    diff: block("café = 1", "café = 10"),
    expect: "café = 10\nresume\u0301 = 2\n",
  },
];
