import type { ReactNode } from "react";
import { diffHunks, type DiffLine } from "@cairn/core/diff";
import { highlight } from "./highlight.ts";

type Row = { left?: Extract<DiffLine, { type: string; text: string }>; right?: Extract<DiffLine, { type: string; text: string }>; gap?: number };

/** Unified lines paired for side by side: a run of removed lines faces the run of added lines after it. */
function sideBySide(lines: DiffLine[]): Row[] {
  const rows: Row[] = [];
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    if (line.type === "gap") {
      rows.push({ gap: line.skipped });
      i++;
    } else if (line.type === " ") {
      rows.push({ left: line, right: line });
      i++;
    } else {
      const removed: Row["left"][] = [];
      const added: Row["right"][] = [];
      while (i < lines.length && lines[i]!.type === "-") removed.push(lines[i++] as Row["left"]);
      while (i < lines.length && lines[i]!.type === "+") added.push(lines[i++] as Row["right"]);
      for (let k = 0; k < Math.max(removed.length, added.length); k++) rows.push({ left: removed[k], right: added[k] });
    }
  }
  return rows;
}

const cls = (type: string | undefined) => (type === "+" ? "diff-add" : type === "-" ? "diff-del" : type === " " ? "diff-ctx" : "diff-empty");

function Code({ text, path }: { text: string; path: string }): ReactNode {
  return highlight(text, path).map((t, i) => (t.kind ? <span key={i} className={`tok-${t.kind}`}>{t.text}</span> : t.text));
}

/** An edit as a diff: unified, and side by side where the screen is wide enough (CSS picks). */
export function DiffView({ path, oldText, newText }: { path: string; oldText: string | null; newText: string }) {
  const { lines, added, removed } = diffHunks(oldText ?? "", newText);
  return (
    <figure className="diff" aria-label={`Changes to ${path}`}>
      <figcaption>
        <code>{path}</code> {oldText === null ? <span className="badge">new file</span> : null} <span className="added">+{added}</span>{" "}
        <span className="removed">−{removed}</span>
      </figcaption>
      <pre className="diff-unified">
        {lines.map((line, i) =>
          line.type === "gap" ? (
            <div key={i} className="diff-gap">
              ⋯ {line.skipped} unchanged line{line.skipped === 1 ? "" : "s"}
            </div>
          ) : (
            <div key={i} className={cls(line.type)}>
              <span className="diff-num" aria-hidden="true">
                {line.line}
              </span>
              <span className="diff-sign" aria-hidden="true">
                {line.type}
              </span>
              {line.type === "+" ? (
                <ins>
                  <Code text={line.text} path={path} />
                </ins>
              ) : line.type === "-" ? (
                <del>
                  <Code text={line.text} path={path} />
                </del>
              ) : (
                <span>
                  <Code text={line.text} path={path} />
                </span>
              )}
            </div>
          ),
        )}
      </pre>
      <table className="diff-split" aria-hidden="true">
        <colgroup>
          <col className="num" />
          <col />
          <col className="num" />
          <col />
        </colgroup>
        <tbody>
          {sideBySide(lines).map((row, i) =>
            row.gap !== undefined ? (
              <tr key={i} className="diff-gap">
                <td colSpan={4}>⋯ {row.gap} unchanged</td>
              </tr>
            ) : (
              <tr key={i}>
                <td className={`diff-num ${cls(row.left?.type)}`}>{row.left?.line}</td>
                <td className={cls(row.left?.type)}>{row.left ? <Code text={row.left.text} path={path} /> : null}</td>
                <td className={`diff-num ${cls(row.right?.type)}`}>{row.right?.line}</td>
                <td className={cls(row.right?.type)}>{row.right ? <Code text={row.right.text} path={path} /> : null}</td>
              </tr>
            ),
          )}
        </tbody>
      </table>
    </figure>
  );
}
