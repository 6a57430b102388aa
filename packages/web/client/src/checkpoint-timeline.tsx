import { useEffect, useState } from "react";
import { codeLines } from "@cairn/host/markdown/markdown-core";
import { api, type CheckpointEntry } from "./api.ts";
import { ErrorAlert } from "./error-alert.tsx";
import "@cairn/host/markdown/markdown-grammars";
import type { TaskState } from "./task-state.ts";

/** The file a unified diff's `+++ b/path` (or `--- a/path` for a deletion) line names, if it is one. */
function fileOf(line: string): string | undefined {
  const m = /^(?:\+\+\+|---) (?:[ab]\/)?(.+)$/.exec(line);
  return m && m[1] !== "/dev/null" ? m[1] : undefined;
}

/** A line of code coloured for its file's language (by extension; an unknown one stays plain). */
function Code({ text, path }: { text: string; path: string | undefined }) {
  const ext = path?.split("/").pop()?.split(".").pop()?.toLowerCase();
  const tokens = codeLines(text, ext)[0] ?? [];
  return (
    <>
      {tokens.map((t, i) =>
        t.kind ? (
          <span key={i} className={t.kind.split(".").map((part, p) => (p === 0 ? `hljs-${part}` : `${part}_`)).join(" ")}>
            {t.text}
          </span>
        ) : (
          t.text
        ),
      )}
    </>
  );
}

/** A step's changes as a diff: added and removed lines coloured, their code coloured for its language. */
function Patch({ patch }: { patch: string }) {
  if (patch.trim() === "") return <p className="muted">No file changes in this step.</p>;
  let path: string | undefined;
  return (
    <pre className="patch">
      {patch.split("\n").map((line, i) => {
        const header = line.startsWith("+++") || line.startsWith("---") || line.startsWith("diff ") || line.startsWith("index ");
        if (header) {
          path = fileOf(line) ?? path;
          return (
            <div key={i} className="diff-file">
              {line}
            </div>
          );
        }
        if (line.startsWith("@@")) {
          return (
            <div key={i} className="diff-gap">
              {line}
            </div>
          );
        }
        const sign = line[0];
        const kind = sign === "+" ? "diff-add" : sign === "-" ? "diff-del" : "";
        return (
          <div key={i} className={kind}>
            <span className="diff-sign" aria-hidden="true">
              {sign === "+" || sign === "-" ? sign : " "}
            </span>
            {sign === "+" ? (
              <ins>
                <Code text={line.slice(1)} path={path} />
              </ins>
            ) : sign === "-" ? (
              <del>
                <Code text={line.slice(1)} path={path} />
              </del>
            ) : (
              <Code text={line.slice(1) || " "} path={path} />
            )}
          </div>
        );
      })}
    </pre>
  );
}

function Step({ task, entry }: { task: TaskState; entry: CheckpointEntry }) {
  const [patch, setPatch] = useState<string>();
  const [choosing, setChoosing] = useState(false);
  const [message, setMessage] = useState<string>();
  const [restored, setRestored] = useState<string>();
  const toggleDiff = async () => {
    if (patch !== undefined) return setPatch(undefined);
    const diff = await api.stepDiff(task.id, entry.number);
    setPatch(diff.ok ? diff.data.patch : "");
    if (!diff.ok) setMessage(diff.error);
  };
  const restore = async (what: "files" | "conversation" | "both") => {
    const done = await api.restore(task.id, entry.number, what);
    setMessage(done.ok ? undefined : done.error);
    setRestored(done.ok ? String(done.data.summary) : undefined);
    setChoosing(false);
  };
  return (
    <li className="step">
      <div className="step-head">
        <span className="step-number">{entry.number}</span>
        <span className="step-label">{entry.label}</span>
        <span className="muted">{new Date(entry.created_at).toLocaleTimeString()}</span>
      </div>
      <div className="step-buttons">
        <button type="button" aria-expanded={patch !== undefined} onClick={() => void toggleDiff()}>
          {patch === undefined ? "Show changes" : "Hide changes"}
          <span className="visually-hidden"> of checkpoint {entry.number}</span>
        </button>
        <button type="button" aria-expanded={choosing} disabled={task.running} onClick={() => setChoosing(!choosing)}>
          Restore…<span className="visually-hidden"> checkpoint {entry.number}</span>
        </button>
      </div>
      {choosing ? (
        <div className="step-buttons" role="group" aria-label={`Restore checkpoint ${entry.number}`}>
          <button type="button" onClick={() => void restore("files")}>Restore files</button>
          <button type="button" onClick={() => void restore("conversation")}>Restore conversation</button>
          <button type="button" onClick={() => void restore("both")}>Restore both</button>
        </div>
      ) : null}
      {patch !== undefined ? <Patch patch={patch} /> : null}
      {restored ? <p role="status">{restored}</p> : null}
      <ErrorAlert message={message} />
    </li>
  );
}

/** The task's checkpoints: each step's changes, and a way back to any of them. */
export function CheckpointTimeline({ task }: { task: TaskState }) {
  const [open, setOpen] = useState(false);
  const [entries, setEntries] = useState<CheckpointEntry[]>([]);
  const [error, setError] = useState<string>();
  // Each restore adds a checkpoint (the way back): the list is fetched again.
  const restores = task.items.filter((item) => item.kind === "restored").length;
  useEffect(() => {
    if (!open) return;
    let live = true;
    void api.checkpoints(task.id).then((found) => {
      if (!live) return;
      if (found.ok) setEntries(found.data.checkpoints);
      setError(found.ok ? undefined : found.error);
    });
    return () => {
      live = false;
    };
  }, [open, task.id, task.checkpoints.length, restores, task.running]);
  return (
    <details className="timeline-panel" open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)}>
      <summary>Checkpoints ({task.checkpoints.length})</summary>
      {error ? <p className="muted">{error}</p> : null}
      <ol className="steps">
        {entries.map((entry) => (
          <Step key={entry.hash + entry.number} task={task} entry={entry} />
        ))}
      </ol>
    </details>
  );
}
