import { memo, type ReactNode } from "react";
import { codeLines, decodeEntities, lexMarkdown, safeHref, type Token, type Tokens } from "@cairn/host/markdown/markdown-core";
import "@cairn/host/markdown/markdown-grammars";

/**
 * A reply as markdown, built as React elements from the tokens of the parser the terminal uses
 * too. Nothing of the model's text is ever parsed as HTML here (no innerHTML anywhere): raw HTML
 * in a reply is a token whose text React shows escaped, so a `<script>` or an `onerror` is just
 * words. Links open only for http(s) and mailto, in a new tab with no opener and no referrer;
 * images are not loaded (a reply's image URL could carry what the model read to any server), they
 * are shown as a link to follow by hand.
 */

function inline(tokens: Token[] | undefined): ReactNode[] {
  return (tokens ?? []).map((token, i) => {
    const t = token as Tokens.Generic;
    switch (t.type) {
      case "text":
        return t.tokens && t.tokens.length > 0 ? inline(t.tokens) : decodeEntities(String(t.text));
      case "escape":
        return decodeEntities(String(t.text));
      case "strong":
        return <strong key={i}>{inline(t.tokens)}</strong>;
      case "em":
        return <em key={i}>{inline(t.tokens)}</em>;
      case "del":
        return <del key={i}>{inline(t.tokens)}</del>;
      case "codespan":
        return <code key={i}>{String(t.text)}</code>;
      case "br":
        return <br key={i} />;
      case "link": {
        const link = t as Tokens.Link;
        const href = safeHref(link.href);
        return href ? (
          <a key={i} href={href} target="_blank" rel="noopener noreferrer">
            {inline(link.tokens)}
          </a>
        ) : (
          <span key={i} className="unsafe-link" title={`Not a web link, not opened: ${link.href}`}>
            {inline(link.tokens)}
          </span>
        );
      }
      case "image": {
        const image = t as Tokens.Image;
        const href = safeHref(image.href);
        const label = `[image: ${decodeEntities(image.text) || "untitled"}]`;
        return href ? (
          <a key={i} href={href} target="_blank" rel="noopener noreferrer">
            {label}
          </a>
        ) : (
          <span key={i}>{label}</span>
        );
      }
      case "checkbox":
        return <input key={i} type="checkbox" checked={(t as Tokens.Checkbox).checked} disabled aria-label={(t as Tokens.Checkbox).checked ? "done" : "not done"} />;
      default:
        // Raw HTML and anything else: the text as written.
        return String(t.raw ?? "");
    }
  });
}

function Code({ code }: { code: Tokens.Code }) {
  const lang = (code.lang ?? "").trim().split(/\s+/)[0] ?? "";
  const lines = codeLines(code.text, lang);
  return (
    <figure className="md-code">
      {lang ? <figcaption className="md-code-lang">{lang}</figcaption> : null}
      <pre>
        <code className={lang ? `language-${lang.replace(/[^\w+-]/g, "")}` : undefined}>
          {lines.map((tokens, n) => (
            <span key={n} className="md-code-line">
              {tokens.map((token, k) =>
                token.kind ? (
                  <span key={k} className={token.kind.split(".").map((part, p) => (p === 0 ? `hljs-${part}` : `${part}_`)).join(" ")}>
                    {token.text}
                  </span>
                ) : (
                  token.text
                ),
              )}
              {n < lines.length - 1 ? "\n" : null}
            </span>
          ))}
        </code>
      </pre>
    </figure>
  );
}

function blocks(tokens: Token[]): ReactNode[] {
  return tokens.map((token, i) => <Block key={i} token={token} />);
}

function ListItem({ item }: { item: Tokens.ListItem }) {
  return <li className={item.task ? "md-task" : undefined}>{item.tokens.map((child, i) => (child.type === "text" || child.type === "checkbox" ? <span key={i}>{inline([child])}</span> : <Block key={i} token={child} />))}</li>;
}

function BlockView({ token }: { token: Token }): ReactNode {
  const t = token as Tokens.Generic;
  switch (t.type) {
    case "space":
    case "def":
      return null;
    case "heading": {
      const depth = Math.min(6, Math.max(1, (t as Tokens.Heading).depth));
      const Tag = `h${depth}` as "h1";
      return <Tag>{inline(t.tokens)}</Tag>;
    }
    case "paragraph":
      return <p>{inline(t.tokens)}</p>;
    case "text":
      return <p>{t.tokens ? inline(t.tokens) : decodeEntities(String(t.text))}</p>;
    case "code":
      return <Code code={t as Tokens.Code} />;
    case "blockquote":
      return <blockquote>{blocks(t.tokens ?? [])}</blockquote>;
    case "hr":
      return <hr />;
    case "list": {
      const list = t as Tokens.List;
      const items = list.items.map((item, i) => <ListItem key={i} item={item} />);
      return list.ordered ? <ol start={typeof list.start === "number" && list.start !== 1 ? list.start : undefined}>{items}</ol> : <ul>{items}</ul>;
    }
    case "table": {
      const table = t as Tokens.Table;
      const align = (c: number) => (table.align[c] ? { textAlign: table.align[c]! } : undefined);
      return (
        <div className="md-table">
          <table>
            <thead>
              <tr>
                {table.header.map((cell, c) => (
                  <th key={c} style={align(c)}>
                    {inline(cell.tokens)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {table.rows.map((row, r) => (
                <tr key={r}>
                  {row.map((cell, c) => (
                    <td key={c} style={align(c)}>
                      {inline(cell.tokens)}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      );
    }
    case "html":
      // A block of raw HTML, shown as its source.
      return <pre className="md-raw">{String(t.raw).replace(/\n+$/, "")}</pre>;
    default:
      return t.raw ? <p>{String(t.raw)}</p> : null;
  }
}

/** A block re-renders only when its own source changed: as a reply streams, only its last block does. */
const Block = memo(BlockView, (before, after) => before.token.raw === after.token.raw && before.token.type === after.token.type);

/** `text` as markdown. Mid-stream, an unclosed code fence is shown as code to the end. */
export function Markdown({ text }: { text: string }) {
  return <div className="markdown">{blocks(lexMarkdown(text))}</div>;
}
