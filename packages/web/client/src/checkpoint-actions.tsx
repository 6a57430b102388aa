import { useEffect, useState } from "react";
import { codeLines } from "@cairn/host/markdown/markdown-core";
import { marksAStep } from "@cairn/core/transcript";
import { api, type CheckpointEntry } from "./api.ts";
import { ErrorAlert } from "./error-alert.tsx";
import "@cairn/host/markdown/markdown-grammars";
import type { Item, TaskState } from "./task-state.ts";

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

/**
 * What can be done with checkpoint `number` of the task, wherever it is shown (the Checkpoints
 * list, or its marker in the conversation): compare (its step's changes as a diff) and restore
 * the files, the conversation or both (not while the task works).
 */
export function CheckpointActions({ task, number }: { task: TaskState; number: number }) {
  const [patch, setPatch] = useState<string>();
  const [choosing, setChoosing] = useState(false);
  const [message, setMessage] = useState<string>();
  const [restored, setRestored] = useState<string>();
  const toggleDiff = async () => {
    if (patch !== undefined) return setPatch(undefined);
    const diff = await api.stepDiff(task.id, number);
    setPatch(diff.ok ? diff.data.patch : "");
    if (!diff.ok) setMessage(diff.error);
  };
  const restore = async (what: "files" | "conversation" | "both") => {
    const done = await api.restore(task.id, number, what);
    setMessage(done.ok ? undefined : done.error);
    setRestored(done.ok ? String(done.data.summary) : undefined);
    setChoosing(false);
  };
  return (
    <>
      <div className="step-buttons">
        <button type="button" aria-expanded={patch !== undefined} onClick={() => void toggleDiff()}>
          {patch === undefined ? "Compare" : "Hide changes"}
          <span className="visually-hidden"> checkpoint {number}</span>
        </button>
        <button type="button" aria-expanded={choosing} disabled={task.running} onClick={() => setChoosing(!choosing)}>
          Restore…<span className="visually-hidden"> checkpoint {number}</span>
        </button>
      </div>
      {choosing ? (
        <div className="step-buttons" role="group" aria-label={`Restore checkpoint ${number}`}>
          <button type="button" onClick={() => void restore("files")}>Restore files</button>
          <button type="button" onClick={() => void restore("conversation")}>Restore conversation</button>
          <button type="button" onClick={() => void restore("both")}>Restore both</button>
        </div>
      ) : null}
      {patch !== undefined ? <Patch patch={patch} /> : null}
      {restored ? <p role="status">{restored}</p> : null}
      <ErrorAlert message={message} />
    </>
  );
}

/**
 * The task's checkpoints as the server numbers them (the numbers restore and compare take), asked
 * again as checkpoints are added and after each restore (which adds its own). `wanted`: whether to
 * ask at all.
 */
export function useCheckpointList(task: TaskState, wanted: boolean): { entries: CheckpointEntry[]; error?: string } {
  const [found, setFound] = useState<{ entries: CheckpointEntry[]; error?: string }>({ entries: [] });
  const restores = task.items.filter((item) => item.kind === "restored").length;
  useEffect(() => {
    if (!wanted) return;
    let live = true;
    void api.checkpoints(task.id).then((got) => {
      if (live) setFound(got.ok ? { entries: got.data.checkpoints } : { entries: [], error: got.error });
    });
    return () => {
      live = false;
    };
  }, [wanted, task.id, task.checkpoints.length, restores, task.running]);
  return found;
}

type CheckpointItem = Extract<Item, { kind: "checkpoint" }>;

/**
 * The server's number of each checkpoint item of the conversation, by its key. Both lists are in
 * the order the checkpoints were made; the server's also holds those a restore made (which mark
 * nothing in the conversation), so each item takes the next entry with its hash and label.
 */
export function checkpointNumbers(items: readonly Item[], entries: readonly CheckpointEntry[]): Map<string, number> {
  const numbers = new Map<string, number>();
  let next = 0;
  for (const item of items) {
    if (item.kind !== "checkpoint") continue;
    const at = entries.findIndex((e, i) => i >= next && e.hash === item.hash && e.label === item.label && e.message_index === item.message_index);
    if (at === -1) continue;
    numbers.set(item.key, entries[at]!.number);
    next = at + 1;
  }
  return numbers;
}

/** Whether an item is a checkpoint that marks a step in the conversation. */
export function isStepMarker(item: Item): item is CheckpointItem {
  return item.kind === "checkpoint" && marksAStep(item);
}
