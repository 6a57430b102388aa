/**
 * A small syntax colouring for diffs: comments, strings, numbers and keywords of the C family,
 * Python, shell and the like, one line at a time. Enough to read an edit; not a parser.
 */
export type Token = { text: string; kind?: "comment" | "string" | "number" | "keyword" };

const keywords = new Set(
  "abstract as async await break case catch class const continue def default del do elif else enum export extends false final finally fn for from func function go if impl import in interface let match mod new nil none null package pass private protected pub public raise return self static struct super switch this throw true try type typeof undefined use var void while with yield".split(" "),
);

const hashComments = /\.(py|sh|bash|zsh|rb|pl|ya?ml|toml|r|conf|ini|mk)$|^(Makefile|Dockerfile)$/i;

export function highlight(line: string, path: string): Token[] {
  const hash = hashComments.test(path.split("/").pop() ?? "");
  const pattern = hash
    ? /(#.*$)|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?)|(\b\d[\d_.]*\b)|([A-Za-z_][\w]*)/g
    : /(\/\/.*$|\/\*.*?(?:\*\/|$))|("(?:[^"\\]|\\.)*"?|'(?:[^'\\]|\\.)*'?|`(?:[^`\\]|\\.)*`?)|(\b\d[\d_.]*\b)|([A-Za-z_$][\w$]*)/g;
  const tokens: Token[] = [];
  let last = 0;
  for (const m of line.matchAll(pattern)) {
    const at = m.index ?? 0;
    const word = m[4];
    const kind = m[1] ? "comment" : m[2] ? "string" : m[3] ? "number" : word && keywords.has(word) ? "keyword" : undefined;
    if (!kind) continue;
    if (at > last) tokens.push({ text: line.slice(last, at) });
    tokens.push({ text: m[0], kind });
    last = at + m[0].length;
  }
  if (last < line.length) tokens.push({ text: line.slice(last) });
  return tokens;
}
