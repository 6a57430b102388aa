import { diffHunks } from "./line-diff.ts";

/** An edit as a unified diff of the lines that change, with a little context. */
export function DiffView({ path, oldText, newText }: { path: string; oldText: string | null; newText: string }) {
  const { lines, added, removed } = diffHunks(oldText ?? "", newText);
  return (
    <figure className="diff" aria-label={`Changes to ${path}`}>
      <figcaption>
        <code>{path}</code> {oldText === null ? <span className="badge">new file</span> : null} <span className="added">+{added}</span>{" "}
        <span className="removed">−{removed}</span>
      </figcaption>
      <pre>
        {lines.map((line, i) =>
          line.type === "gap" ? (
            <div key={i} className="diff-gap">
              ⋯ {line.skipped} unchanged line{line.skipped === 1 ? "" : "s"}
            </div>
          ) : (
            <div key={i} className={line.type === "+" ? "diff-add" : line.type === "-" ? "diff-del" : "diff-ctx"}>
              <span className="diff-num" aria-hidden="true">
                {line.line}
              </span>
              <span className="diff-sign" aria-hidden="true">
                {line.type}
              </span>
              {line.type === "+" ? <ins>{line.text}</ins> : line.type === "-" ? <del>{line.text}</del> : <span>{line.text}</span>}
            </div>
          ),
        )}
      </pre>
    </figure>
  );
}
