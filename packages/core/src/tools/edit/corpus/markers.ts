import type { EditCase } from "./types.js";

const file = "alpha\nbeta\ngamma\n";
const FORMAT = "------- SEARCH\n[exact lines from the current file]\n=======";

/** Marker variants that are accepted, and malformed ones that must fail saying what is wrong. */
export const markerCases: EditCase[] = [
  {
    name: "markers: legacy <<<<<<< SEARCH / >>>>>>> REPLACE",
    file,
    diff: "<<<<<<< SEARCH\nbeta\n=======\nBETA\n>>>>>>> REPLACE",
    expect: "alpha\nBETA\ngamma\n",
  },
  {
    name: "markers: legacy and current markers mixed in one diff",
    file,
    diff: "<<<<<<< SEARCH\nalpha\n=======\nALPHA\n+++++++ REPLACE\n------- SEARCH\ngamma\n=======\nGAMMA\n>>>>>>> REPLACE\n",
    expect: "ALPHA\nbeta\nGAMMA\n",
  },
  {
    name: "markers: 3 characters each",
    file,
    diff: "--- SEARCH\nbeta\n===\nb\n+++ REPLACE",
    expect: "alpha\nb\ngamma\n",
  },
  {
    name: "markers: 11 characters each",
    file,
    diff: "----------- SEARCH\nbeta\n===========\nb\n+++++++++++ REPLACE",
    expect: "alpha\nb\ngamma\n",
  },
  {
    name: "markers: a '>' after the keyword (Cline's variant)",
    file,
    diff: "------- SEARCH>\nbeta\n=======\nb\n+++++++ REPLACE>",
    expect: "alpha\nb\ngamma\n",
  },
  {
    name: "markers: trailing spaces after a marker are tolerated",
    file,
    diff: "------- SEARCH  \nbeta\n======= \nb\n+++++++ REPLACE\t",
    expect: "alpha\nb\ngamma\n",
  },
  {
    name: "markers: the final REPLACE marker may be missing at the end",
    file,
    diff: "------- SEARCH\nalpha\n=======\nA\n+++++++ REPLACE\n------- SEARCH\ngamma\n=======\nG",
    expect: "A\nbeta\nG\n",
  },
  {
    name: "markers: missing final REPLACE with trailing blank lines (framing, not content)",
    file,
    diff: "------- SEARCH\ngamma\n=======\nG\n\n\n",
    expect: "alpha\nbeta\nG\n",
  },
  {
    name: "markers: a diff with CRLF line endings",
    file,
    diff: "------- SEARCH\r\nbeta\r\n=======\r\nb\r\n+++++++ REPLACE\r\n",
    expect: "alpha\nb\ngamma\n",
  },
  {
    name: "markers: blank lines and a ``` fence around the blocks are ignored",
    file,
    diff: "```diff\n\n------- SEARCH\nalpha\n=======\nA\n+++++++ REPLACE\n\n\n------- SEARCH\nbeta\n=======\nB\n+++++++ REPLACE\n```\n",
    expect: "A\nB\ngamma\n",
  },
  {
    name: "malformed: SEARCH marker with 2 dashes",
    file,
    diff: "-- SEARCH\nbeta\n=======\nb\n+++++++ REPLACE",
    expect: { error: ['line 1 ("-- SEARCH")', "only 2 '-' characters; a marker needs at least 3", FORMAT] },
  },
  {
    name: "malformed: no space between dashes and SEARCH",
    file,
    diff: "-------SEARCH\nbeta\n=======\nb\n+++++++ REPLACE",
    expect: { error: ['line 1 ("-------SEARCH")', "no space between", 'Write it exactly as "------- SEARCH"', FORMAT] },
  },
  {
    name: "malformed: REPLACE marker with 2 pluses",
    file,
    diff: "------- SEARCH\nbeta\n=======\nb\n++ REPLACE",
    expect: { error: ['line 5 ("++ REPLACE")', "only 2 '+' characters", '"+++++++ REPLACE"'] },
  },
  {
    name: "malformed: lower-case keyword",
    file,
    diff: "------- search\nbeta\n=======\nb\n+++++++ REPLACE",
    expect: { error: ["must spell SEARCH in capitals"] },
  },
  {
    name: "malformed: an indented marker",
    file,
    diff: "  ------- SEARCH\nbeta\n=======\nb\n+++++++ REPLACE",
    expect: { error: ["starts with whitespace"] },
  },
  {
    name: "malformed: REPLACE marker before =======",
    file,
    diff: "------- SEARCH\nbeta\n+++++++ REPLACE",
    expect: { error: ["REPLACE marker before the ======= line in block 1", FORMAT] },
  },
  {
    name: "malformed: a mistyped separator is named when REPLACE comes first",
    file,
    diff: "------- SEARCH\nbeta\n==\nb\n+++++++ REPLACE",
    expect: { error: ["REPLACE marker before the ======= line", 'Line 3 ("==") looks like a separator'] },
  },
  {
    name: "malformed: double REPLACE marker",
    file,
    diff: "------- SEARCH\nbeta\n=======\nb\n+++++++ REPLACE\n+++++++ REPLACE",
    expect: { error: ["REPLACE marker outside a block: block 1 was already closed by the REPLACE marker on line 5"] },
  },
  {
    name: "malformed: SEARCH inside SEARCH",
    file,
    diff: "------- SEARCH\nbeta\n------- SEARCH\ngamma\n=======\nx\n+++++++ REPLACE",
    expect: { error: ["SEARCH marker inside the SEARCH part of block 1, which opened on line 1"] },
  },
  {
    name: "malformed: a second ======= in one block",
    file,
    diff: "------- SEARCH\nbeta\n=======\nb\n=======\nc\n+++++++ REPLACE",
    expect: { error: ["a second ======= line in block 1 (the first is on line 3)"] },
  },
  {
    name: "malformed: ======= with no SEARCH before it",
    file,
    diff: "=======\nb\n+++++++ REPLACE",
    expect: { error: ["======= line outside a block: there is no open SEARCH marker before it"] },
  },
  {
    name: "malformed: text outside any block",
    file,
    diff: "Here is the change:\n------- SEARCH\nbeta\n=======\nb\n+++++++ REPLACE",
    expect: { error: ['line 1 ("Here is the change:") is outside any block'] },
  },
  {
    name: "malformed: a block without REPLACE marker before the next SEARCH",
    file,
    diff: "------- SEARCH\nalpha\n=======\nA\n------- SEARCH\nbeta\n=======\nB\n+++++++ REPLACE",
    expect: { error: ["block 1 has no REPLACE marker (+++++++ REPLACE) before the next SEARCH marker on line 5"] },
  },
  {
    name: "malformed: the diff ends inside SEARCH",
    file,
    diff: "------- SEARCH\nbeta\n",
    expect: { error: ["block 1 (SEARCH marker on line 1) ends before its ======= line"] },
  },
  {
    name: "malformed: an empty diff",
    file,
    diff: "",
    expect: { error: ["the diff holds no SEARCH/REPLACE block", FORMAT] },
  },
  {
    name: "malformed: a later block's error keeps earlier good blocks from applying",
    file,
    diff: "------- SEARCH\nalpha\n=======\nA\n+++++++ REPLACE\n------ SEARCH\nbeta\n=======\nB\n+++++++REPLACE",
    expect: { error: ["the diff is malformed at its line 10", "no space between", "The file is exactly as it was"] },
  },
];
